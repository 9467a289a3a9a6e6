// Writes a sample HTML report (ring on desmos, block vs round-robin loads) for
// the headless-browser render test.
#include <cstdio>

#include "rankmap/atomic_file.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/report.hpp"

using namespace rankmap;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: sample_report OUT.html\n");
    return 2;
  }
  const Machine machine = *parse_machine("desmos");
  const Torus torus = *machine.torus();
  Profile ring;
  ring.ranks = 64;
  ring.rank_info.resize(64);
  for (int r = 0; r < 64; ++r) ring.p2p.push_back({r, (r + 1) % 64, 100, 100 * 8192});
  report::Page page;
  page.title = "sample report";
  page.verdict = "round-robin vs block: hop-bytes +100%";
  page.notes = {"a ring of 64 ranks"};
  std::vector<int> launch(64);
  for (int r = 0; r < 64; ++r) launch[r] = r;
  page.figures.push_back({"launch order", report::comm_matrix_svg(ring, launch, "ring, launch order")});
  for (int spread : {2, 32}) {  // 2 ranks per node in rank order vs round-robin over 32 nodes
    std::vector<NodeFlow> flows;
    for (const PairTraffic& t : ring.p2p) {
      const int a = spread == 2 ? t.src / 2 : t.src % 32, b = spread == 2 ? t.dst / 2 : t.dst % 32;
      if (a != b) flows.push_back({a, b, static_cast<double>(t.bytes)});
    }
    page.figures.push_back({spread == 2 ? "block" : "round-robin",
                            report::link_load_svg(torus, torus.link_loads(flows), spread == 2 ? "block" : "round-robin", 1e-3)});
  }
  page.table.header = {"mapping", "metric"};
  page.table.rows = {{"block", "1"}, {"round-robin", "2"}};
  page.legend = {{"metric", "a number"}};
  Status s = write_file_atomically(argv[1], report::html_page(page));
  if (!s) {
    std::fprintf(stderr, "sample_report: %s\n", s.error().message.c_str());
    return 1;
  }
  return 0;
}
