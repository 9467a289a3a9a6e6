#include <catch2/catch.hpp>

#include <regex>

#include "rankmap/report.hpp"

using namespace rankmap;

namespace {

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

Profile ring(int ranks, std::uint64_t bytes) {
  Profile p;
  p.ranks = ranks;
  p.rank_info.resize(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) p.p2p.push_back({r, (r + 1) % ranks, 1, bytes});
  return p;
}

}  // namespace

TEST_CASE("heatmap: one cell per nonzero pair, log colour scale, order applied") {
  Profile p = ring(4, 1000);
  p.p2p[0].bytes = 1000000;  // 0 -> 1 is the heaviest: top of the scale
  const std::string svg = report::comm_matrix_svg(p, {0, 1, 2, 3}, "ring");
  // 4 traffic cells + background + 32 colour-bar steps
  CHECK(count(svg, "<rect") == 4 + 1 + 32);
  CHECK(count(svg, "fill=\"#fde725\"") == 1);  // top of viridis: the heavy pair only
  CHECK(count(svg, "fill=\"#440154\"") == 3);  // bottom: the three light pairs
  // Cell of 0 -> 1 sits at row 0, column 1 in launch order...
  const double cell = 512.0 / 4;
  CHECK(svg.find("<rect x=\"" + std::to_string(static_cast<int>(44 + cell)) + "\" y=\"30\" width=\"128\" height=\"128\" fill=\"#fde725\"/>") != std::string::npos);
  // ...and at row 3, column 0 when ranks are drawn in the order 1, 2, 3, 0.
  const std::string reordered = report::comm_matrix_svg(p, {1, 2, 3, 0}, "ring");
  CHECK(reordered.find("<rect x=\"44\" y=\"" + std::to_string(static_cast<int>(30 + 3 * cell)) + "\" width=\"128\" height=\"128\" fill=\"#fde725\"/>") != std::string::npos);
}

TEST_CASE("heatmap: large jobs are binned, bytes summed per bin") {
  const Profile p = ring(1024, 10);
  std::vector<int> order(1024);
  for (int i = 0; i < 1024; ++i) order[i] = i;
  const std::string svg = report::comm_matrix_svg(p, order, "big", 256);
  // 4 ranks per bin: pairs inside a bin fall on the diagonal, 255 bin-crossing
  // pairs plus the wrap-around 1023 -> 0 give off-diagonal cells.
  CHECK(count(svg, "<rect") == 256 + 256 + 1 + 32);
  CHECK(svg.find("1024 ranks in 256 bins") != std::string::npos);
}

TEST_CASE("link-load picture: every existing connection drawn once, coloured by load") {
  auto t = Torus::create({4, 2, 2, 2}, {true, true, true, true}, {1, 1, 1, 1}, 1e9);
  REQUIRE(t.ok());
  std::vector<double> loads(static_cast<size_t>(t->link_slots()), 0.0);
  loads[t->link_index(0, 0, Direction::plus)] = 1e9;  // node 0 -> 1 busy for 1 s
  const std::string svg = report::link_load_svg(*t, loads, "desmos", 1.0);
  // In-tile lines: X ring has 2 directions per node (8 lines per tile row... ),
  // Y size-2 ring has one "+" per node; 4 tiles (Z, K) of 4x2 nodes.
  const int x_lines = 4 * 2 * 2, y_lines = 4 * 2;
  CHECK(count(svg, "<line") == 4 * (x_lines + y_lines));
  CHECK(count(svg, "<circle") == 32);
  CHECK(count(svg, "<rect x=") == 32 * 2 + 32);  // Z+ and K+ per node, colour bar
  CHECK(count(svg, "stroke=\"#fde725\"") == 1);
  CHECK(svg.find("X+ from node 0: busy 1s (bytes / capacity)") != std::string::npos);
  CHECK(svg.find("Z=1 K=1") != std::string::npos);
}

TEST_CASE("html page escapes text and bundles table and figures") {
  report::Table table{{"mapping", "hop-bytes"}, {{"block <default>", "12"}, {"rankmap", "7"}}};
  const std::string html = report::html_page("a & b", {"note <1>"}, table, {{"fig", "<svg></svg>"}});
  CHECK(html.find("<title>a &amp; b</title>") != std::string::npos);
  CHECK(html.find("<td>block &lt;default&gt;</td>") != std::string::npos);
  CHECK(html.find("<p>note &lt;1&gt;</p>") != std::string::npos);
  CHECK(count(html, "<figure>") == 1);
}

TEST_CASE("mapped order sorts ranks by node then core") {
  Mapping m;
  m.machine = *parse_machine("torus=4 node=core:2");
  m.placement = {{2, 1}, {0, 1}, {2, 0}, {0, 0}};
  CHECK(report::mapped_order(m) == std::vector<int>{3, 1, 2, 0});
}
