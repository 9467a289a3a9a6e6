// The node picture: hwloc's own drawing (lstopo-no-graphics --of svg) of the
// machine description's node, run as a child process with an argument
// vector (no shell: the node string comes from user input).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include "rankmap/report.hpp"

namespace rankmap::report {

Result<std::string> node_svg(const Machine& machine, int kind, const std::string& lstopo) {
  std::vector<std::string> args{lstopo, "-i"};
  if (kind == 0 && !machine.node_xml.empty()) {
    args.push_back(machine.node_xml);
  } else {
    // hwloc's own export of the node as rankmap loaded it (PUs added).
    auto kinds = machine.node_kinds();
    if (!kinds) return kinds.error();
    if (kind < 0 || kind >= kinds->count()) return make_error("no node kind " + std::to_string(kind));
    args.push_back(kinds->kind(kind).synthetic());
  }
  for (const char* a : {"--of", "svg", "--no-legend", "-"}) args.emplace_back(a);  // no legend: it holds the date
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out[2];
  if (pipe(out) != 0) return make_error(std::string("cannot draw the node: pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) {
    close(out[0]);
    close(out[1]);
    return make_error(std::string("cannot draw the node: fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    dup2(out[1], 1);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2);  // "Inserting a NUMA level ..."
    close(out[0]);
    close(out[1]);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string svg;
  char buf[65536];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    svg.append(buf, static_cast<size_t>(n));
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || svg.find("<svg") == std::string::npos)
    return make_error("cannot draw the node: " + lstopo +
                      (WIFEXITED(status) && WEXITSTATUS(status) == 127 ? " not found (Debian package hwloc-nox)"
                                                                        : " failed"));
  // Inline in HTML: no XML declaration; lstopo writes units into viewBox,
  // which browsers reject.
  svg.erase(0, svg.find("<svg"));
  svg = std::regex_replace(svg, std::regex("viewBox='0 0 ([0-9]+)px ([0-9]+)px'"), "viewBox='0 0 $1 $2'");
  return svg;
}

}  // namespace rankmap::report
