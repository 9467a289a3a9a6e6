// What the mapper optimises: the directed traffic of a profile (point-to-point,
// one-sided and modelled collectives) and the undirected weighted graph built
// from it. Also the synthetic patterns used by tests, benchmarks and the demo.
// The models are documented in docs/mapper.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rankmap/profile.hpp"
#include "rankmap/result.hpp"
#include "rankmap/torus.hpp"

namespace rankmap {

// Directed rank-to-rank traffic; messages and bytes summed over every source
// (p2p, one-sided, expanded collectives).
struct Flow {
  int src;
  int dst;
  double messages;
  double bytes;
};

enum class CollectiveModel { model, ignore };

struct Traffic {
  int ranks = 0;
  std::vector<Flow> flows;  // sorted by (src, dst), one per ordered pair, no self pairs
  std::vector<std::string> notes;  // e.g. collective operations the model does not know

  double total_bytes() const;
  Status check() const;
};

// Merges p2p, one-sided and (with CollectiveModel::model) collective records
// expanded with the model of MPICH's default algorithms (docs/mapper.md).
Result<Traffic> traffic_from_profile(const Profile& profile, CollectiveModel collectives);

// Flows one collective record produces, appended to out (not merged).
// `members` are the world ranks of the communicator in communicator order.
// Returns false for operations the model does not know.
bool expand_collective(const CollectiveRecord& record, const std::vector<int>& members, std::vector<Flow>& out);

// The byte-equivalent of one message: what the link would have carried during
// the fixed per-message cost t_inj (t_inj x bw).
double message_byte_equivalent(const LatencyModel& model);

// Undirected graph in CSR form. weight[e] of edge {u, v} = bytes(u->v) +
// bytes(v->u) + message_bytes x (messages(u->v) + messages(v->u)).
struct CommGraph {
  int vertices = 0;
  std::vector<std::int64_t> xadj;  // vertices + 1 offsets
  std::vector<int> adjncy;
  std::vector<double> weight;
  double message_bytes = 0;        // byte-equivalent used for one message

  std::int64_t edges() const { return static_cast<std::int64_t>(adjncy.size()) / 2; }
  double total_weight() const;    // sum over undirected edges
  // Symmetric, sorted neighbour lists, no self loops, positive finite weights.
  Status check() const;
};

CommGraph build_comm_graph(const Traffic& traffic, double message_bytes);

// Synthetic communication patterns (profiles), all periodic where a grid is involved:
//   stencil2d   5-point stencil on an a x b grid
//   stencil3d   7-point stencil on an a x b x c grid
//   stencil27   27-point stencil on an a x b x c grid
//   stencil3d-shuffled  stencil3d whose ranks are randomly renumbered (a poor rank order)
//   ring        rank i <-> i+1
//   alltoall    every ordered pair
//   random      each rank sends to `degree` distinct random partners (seeded)
struct SynthSpec {
  std::string pattern;
  int ranks = 0;
  std::vector<int> shape;          // grid sides; empty: the most cubic factorisation of ranks
  std::uint64_t bytes = 1 << 20;   // per ordered pair
  std::uint64_t messages = 100;    // per ordered pair
  int degree = 6;                  // random
  std::uint64_t seed = 1;          // random, stencil3d-shuffled
};

const std::vector<std::string>& synth_patterns();
Result<Profile> synthesize(const SynthSpec& spec);
// The most cubic factorisation of n into `dims` factors, largest first.
std::vector<int> balanced_shape(int n, int dims);

}  // namespace rankmap
