#include "rankmap/launch.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "core_cpus.hpp"
#include "rankmap/atomic_file.hpp"

namespace rankmap {

namespace {

using detail::CoreCpus;
using detail::MachineCores;

// Quotes a word for a POSIX shell only when it needs it, so that the usual
// command lines stay readable and odd paths still paste correctly.
std::string shell_word(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("/._-+:,=@%").find(c) != std::string_view::npos;
  });
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

// Ranks that share a node, in rank order: the "local rank" order that every
// launcher here uses to pick a node's binding entry.
std::vector<std::vector<int>> ranks_by_node(const Mapping& m) {
  std::vector<std::vector<int>> by_node(static_cast<size_t>(m.machine.nodes()));
  for (int r = 0; r < m.ranks(); ++r) by_node[static_cast<size_t>(m.placement[r].node)].push_back(r);
  return by_node;
}

// A launcher that takes one binding list for all nodes (Hydra's -bind-to
// user:, Slurm's map_cpu/mask_cpu) and indexes it by the local position
// obeys the mapping only if every group's sequence of PU sets is a prefix of
// one common list (compared as PUs, not core indices: on a mixed machine the
// same core index is other PUs on another kind of node). Returns that list,
// or an empty vector if there is none.
using PuSet = std::vector<int>;
std::vector<PuSet> common_binding_list(const std::vector<std::vector<PuSet>>& sequences) {
  std::vector<PuSet> longest;
  for (const auto& seq : sequences)
    if (seq.size() > longest.size()) longest = seq;
  for (const auto& seq : sequences)
    if (!std::equal(seq.begin(), seq.end(), longest.begin())) return {};
  return longest;
}

// Where the OS CPU numbers of a native binding list come from, and when they
// are right.
std::string os_numbers_source(const Mapping& m) {
  if (!m.machine.node_xml.empty()) return "from the node-xml= topology; right on nodes numbered like it";
  return "of the machine description's node; they are right only if the real nodes number their PUs the same way "
         "(use node-xml=)";
}

std::string bind_helper_words(const LaunchOptions& o) {
  return "rankmap-bind " + shell_word(o.mapping_path) + " -- " + o.app;
}

// ---- Open MPI ---------------------------------------------------------------
// Logical rankfile (the default, rmaps_rank_file_physical=0): "slot=S:C" is
// logical package S and the C-th core inside it, resolved by Open MPI with
// the hwloc topology of the node the rank lands on, so it needs no OS numbers.
LaunchPlan openmpi_plan(const Mapping& m, const MachineCores& cores, const LaunchOptions& o) {
  LaunchPlan plan{LaunchFormat::openmpi, {}, {}, {}};
  std::string rankfile;
  for (int r = 0; r < m.ranks(); ++r) {
    const Placement& p = m.placement[r];
    const CoreCpus& c = cores.at(p.node, p.core);
    rankfile += "rank " + std::to_string(r) + "=" + m.machine.host_name(p.node) + " slot=" + std::to_string(c.package) +
                ":" + std::to_string(c.core_in_package) + "\n";
  }
  // The hostfile gives every named host enough slots; without it mpirun
  // only knows the hosts of the resource manager's allocation.
  std::string hostfile;
  const auto by_node = ranks_by_node(m);
  for (size_t n = 0; n < by_node.size(); ++n)
    if (!by_node[n].empty())
      hostfile += m.machine.host_name(static_cast<int>(n)) + " slots=" + std::to_string(by_node[n].size()) + "\n";
  const std::string rf = o.prefix + ".rankfile", hf = o.prefix + ".hostfile";
  plan.files = {{rf, rankfile}, {hf, hostfile}};
  const std::string tail = " -n " + std::to_string(m.ranks()) + " " + o.app;
  plan.commands.push_back("mpirun --hostfile " + shell_word(hf) + " --rankfile " + shell_word(rf) + tail);
  // Open MPI 5 (PRRTE) reads the same rankfile through the mapper option;
  // its --rankfile is a deprecated alias. Not run here (no Open MPI 5).
  plan.notes.push_back("Open MPI 4.x line below; Open MPI 5.x: mpirun --hostfile " + shell_word(hf) +
                       " --map-by rankfile:file=" + shell_word(rf) + tail);
  return plan;
}

// ---- MPICH / Hydra ----------------------------------------------------------
// Hydra starts one proxy per run of consecutive machine-file lines naming the
// same host (measured with Hydra 4.0.2: "a:1 b:1 a:1" gives three proxies),
// and -bind-to user:A,B,... is one global list that each proxy indexes by the
// process's position inside that proxy. Entries are OS PU numbers ('+' joins
// the PUs of one entry).
LaunchPlan mpich_plan(const Mapping& m, const MachineCores& cores, const LaunchOptions& o) {
  LaunchPlan plan{LaunchFormat::mpich, {}, {}, {}};
  std::string machinefile;
  std::vector<std::vector<PuSet>> proxy_cores;
  for (int r = 0; r < m.ranks(); ++r) {
    const Placement& p = m.placement[r];
    machinefile += m.machine.host_name(p.node) + ":1\n";
    if (r == 0 || m.placement[r - 1].node != p.node) proxy_cores.emplace_back();
    proxy_cores.back().push_back(cores.at(p.node, p.core).pu_os_index);
  }
  const std::string mf = o.prefix + ".machinefile";
  plan.files = {{mf, machinefile}};
  const std::string head = "mpiexec -f " + shell_word(mf) + " -n " + std::to_string(m.ranks()) + " ";
  const std::vector<PuSet> common = common_binding_list(proxy_cores);
  if (!common.empty()) {
    std::vector<std::string> entries;
    for (const PuSet& core : common) {
      std::vector<std::string> pus;
      for (int pu : core) pus.push_back(std::to_string(pu));
      entries.push_back(join(pus, "+"));
    }
    plan.commands.push_back(head + "-bind-to user:" + join(entries, ",") + " " + o.app);
    plan.notes.push_back("-bind-to user: entries are OS PU numbers " + os_numbers_source(m));
  } else {
    plan.commands.push_back(head + "-bind-to none " + bind_helper_words(o));
    plan.notes.push_back("Hydra's -bind-to user: is one list for all hosts, indexed by position within each run of "
                         "consecutive ranks on a host; this mapping needs different lists, so the bind helper binds");
  }
  return plan;
}

// ---- Slurm ------------------------------------------------------------------
// SLURM_HOSTFILE with --distribution=arbitrary: line i is the host of task i.
// --cpu-bind=map_cpu:/mask_cpu: is one list applied on every node, indexed by
// the task's local id (tasks of a node numbered in global rank order), with
// OS CPU numbers. Where the nodes need different lists, the bind helper binds.
//
// Either way the job needs whole nodes: map_cpu/mask_cpu may name CPUs that
// no task asked for, which srun refuses outside the step's CPUs ("CPU binding
// outside of job step allocation"), and under cgroups the helper can only
// bind inside the job's cpuset. Measured with Slurm 22.05 (tests/slurm): a
// bare `srun --exclusive` does not do it, because srun applies --exclusive to
// the step as well, which then holds only the CPUs its tasks asked for (a
// node with fewer ranks than CPUs fails), and --whole is refused next to it.
// What works is an allocation of whole nodes (salloc or sbatch --exclusive)
// with a plain srun inside, whose step gets all of the job's CPUs.

// The mapped hosts, in node order, comma-separated (for --nodelist).
std::string slurm_node_list(const Mapping& m, size_t* count) {
  std::vector<std::string> hosts;
  const auto by_node = ranks_by_node(m);
  for (size_t n = 0; n < by_node.size(); ++n)
    if (!by_node[n].empty()) hosts.push_back(m.machine.host_name(static_cast<int>(n)));
  *count = hosts.size();
  return join(hosts, ",");
}

// The batch script: the srun line inside an allocation of exactly the mapped
// hosts, whole nodes.
std::string slurm_batch_script(const Mapping& m, const std::string& hostfile, const std::string& srun,
                               const LaunchOptions& o) {
  size_t nodes = 0;
  const std::string node_list = slurm_node_list(m, &nodes);
  std::string script = "#!/bin/sh\n";
  script += "#SBATCH --nodes=" + std::to_string(nodes) + "\n";
  script += "#SBATCH --ntasks=" + std::to_string(m.ranks()) + "\n";
  script += "#SBATCH --nodelist=" + node_list + "\n";
  script += "#SBATCH --exclusive\n";
  script += "# Written by rankfile-gen for " + (o.mapping_path.empty() ? std::string("a mapping") : o.mapping_path) +
            ": every rank on its mapped host and core.\n";
  script += "# Paths are relative to the directory rankfile-gen ran in: submit from there.\n";
  script += "export SLURM_HOSTFILE=" + shell_word(hostfile) + "\n";
  script += srun + "\n";
  return script;
}

LaunchPlan slurm_plan(const Mapping& m, const MachineCores& cores, const LaunchOptions& o) {
  LaunchPlan plan{LaunchFormat::slurm, {}, {}, {}};
  std::string hostfile;
  for (int r = 0; r < m.ranks(); ++r) hostfile += m.machine.host_name(m.placement[r].node) + "\n";
  const std::string hf = o.prefix + ".slurm-hosts", batch = o.prefix + ".sbatch";

  std::vector<std::vector<PuSet>> node_cores;
  for (const auto& ranks : ranks_by_node(m)) {
    if (ranks.empty()) continue;
    node_cores.emplace_back();
    for (int r : ranks) node_cores.back().push_back(cores.at(m.placement[r].node, m.placement[r].core).pu_os_index);
  }
  const std::vector<PuSet> common = common_binding_list(node_cores);
  const std::string srun = "srun --distribution=arbitrary --ntasks=" + std::to_string(m.ranks()) + " ";
  std::string binding;
  if (common.empty()) {
    binding = "--cpu-bind=none " + bind_helper_words(o);
    plan.notes.push_back("--cpu-bind=map_cpu/mask_cpu apply one list on every node; the nodes of this mapping need "
                         "different lists, so the bind helper binds");
  } else {
    const bool one_pu_per_core = std::all_of(common.begin(), common.end(), [](const PuSet& pus) { return pus.size() == 1; });
    std::vector<std::string> entries;
    for (const PuSet& pus : common) {
      if (one_pu_per_core) {
        entries.push_back(std::to_string(pus.front()));
      } else {
        // mask_cpu: a hexadecimal mask of all PUs of the core (bit = OS CPU number).
        std::string hex;
        const int top = pus.back();
        for (int nibble = top / 4; nibble >= 0; --nibble) {
          int v = 0;
          for (int pu : pus)
            if (pu / 4 == nibble) v |= 1 << (pu % 4);
          hex += "0123456789abcdef"[v];
        }
        entries.push_back("0x" + hex);
      }
    }
    binding = std::string("--cpu-bind=") + (one_pu_per_core ? "map_cpu:" : "mask_cpu:") + join(entries, ",") + " " + o.app;
    plan.notes.push_back("map_cpu/mask_cpu entries are OS CPU numbers " + os_numbers_source(m));
  }
  plan.files = {{hf, hostfile}, {batch, slurm_batch_script(m, hf, srun + binding, o)}};
  size_t nodes = 0;
  const std::string node_list = slurm_node_list(m, &nodes);
  plan.notes.push_back("salloc --exclusive allocates the mapped nodes whole, which the binding needs (a bare srun "
                       "--exclusive is not enough: its step gets only the CPUs its tasks ask for); inside an "
                       "allocation of whole nodes run the srun part; or submit the batch script: sbatch " +
                       shell_word(batch));
  plan.commands.push_back("SLURM_HOSTFILE=" + shell_word(hf) + " salloc --nodes=" + std::to_string(nodes) +
                          " --nodelist=" + node_list + " --exclusive " + srun + binding);
  return plan;
}

// ---- Permutation ------------------------------------------------------------
// For applications that renumber themselves instead of being placed: launch in
// block order (nodes by index, then cores by logical index, i.e. the order of
// --map-by core / a "host:k" machine file) and let world rank `new` play the
// mapping's rank `old`.
LaunchPlan perm_plan(const Mapping& m, const LaunchOptions& o) {
  LaunchPlan plan{LaunchFormat::perm, {}, {}, {}};
  std::vector<int> block(static_cast<size_t>(m.ranks()));
  std::iota(block.begin(), block.end(), 0);
  std::sort(block.begin(), block.end(), [&](int a, int b) {
    const Placement &pa = m.placement[a], &pb = m.placement[b];
    return pa.node != pb.node ? pa.node < pb.node : pa.core < pb.core;
  });
  std::string perm = "rankmap-perm 1\nranks " + std::to_string(m.ranks()) + "\n";
  for (size_t new_rank = 0; new_rank < block.size(); ++new_rank)
    perm += std::to_string(new_rank) + " " + std::to_string(block[new_rank]) + "\n";
  const std::string pf = o.prefix + ".perm";
  plan.files = {{pf, perm}};
  plan.notes.push_back("launch in block order (nodes by index, cores by logical index); world rank <new> then plays "
                       "rank <old>: MPI_Comm_split(MPI_COMM_WORLD, 0, old, &comm)");
  return plan;
}

}  // namespace

Result<LaunchFormat> parse_launch_format(std::string_view name) {
  for (LaunchFormat f : all_launch_formats())
    if (name == launch_format_name(f)) return f;
  return make_error("unknown format '" + std::string(name) + "' (openmpi, mpich, slurm, perm or all)");
}

const char* launch_format_name(LaunchFormat format) {
  switch (format) {
    case LaunchFormat::openmpi: return "openmpi";
    case LaunchFormat::mpich: return "mpich";
    case LaunchFormat::slurm: return "slurm";
    case LaunchFormat::perm: return "perm";
  }
  return "?";
}

const std::vector<LaunchFormat>& all_launch_formats() {
  static const std::vector<LaunchFormat> formats = {LaunchFormat::openmpi, LaunchFormat::mpich, LaunchFormat::slurm,
                                                    LaunchFormat::perm};
  return formats;
}

std::vector<std::string> launch_warnings(const Mapping& mapping) {
  std::vector<std::string> warnings;
  if (mapping.machine.hosts_path.empty())
    warnings.push_back("the machine description has no hosts= file, so the launcher files name placeholder hosts "
                       "(" + mapping.machine.host_name(0) + ", ...) that no launcher can reach; give the real host "
                       "names with hosts=FILE (docs/formats.md)");
  return warnings;
}

Result<LaunchPlan> make_launch_plan(const Mapping& mapping, LaunchFormat format, const LaunchOptions& options) {
  Status valid = mapping.check();
  if (!valid) return valid.error();
  auto cores = detail::load_core_cpus(mapping.machine);
  if (!cores) return cores.error();
  switch (format) {
    case LaunchFormat::openmpi: return openmpi_plan(mapping, *cores, options);
    case LaunchFormat::mpich: return mpich_plan(mapping, *cores, options);
    case LaunchFormat::slurm: return slurm_plan(mapping, *cores, options);
    case LaunchFormat::perm: return perm_plan(mapping, options);
  }
  return make_error("unknown launch format");
}

Status write_launch_files(const std::vector<LaunchPlan>& plans) {
  std::vector<OutputFile> files;
  for (const LaunchPlan& plan : plans)
    for (const LaunchFile& file : plan.files) files.push_back(OutputFile{file.path, file.content});
  return write_files_atomically(files);
}

}  // namespace rankmap
