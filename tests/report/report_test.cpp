#include <catch2/catch.hpp>

#include <algorithm>

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

TEST_CASE("matrix cells: one per nonzero pair, order applied, range over cells") {
  Profile p = ring(4, 1000);
  p.p2p[0].bytes = 1000000;  // 0 -> 1 is the heaviest
  const report::MatrixCells m = report::comm_matrix_cells(p, {0, 1, 2, 3});
  CHECK(m.cells == 4);
  CHECK(m.bytes.size() == 4);
  CHECK(m.min_bytes == 1000);
  CHECK(m.max_bytes == 1000000);
  // 0 -> 1 sits at row 0, column 1 in launch order...
  CHECK(m.bytes[0] == std::pair<long long, double>{0 * 4 + 1, 1e6});
  // ...and at row 3, column 0 when ranks are drawn in the order 1, 2, 3, 0.
  const report::MatrixCells r = report::comm_matrix_cells(p, {1, 2, 3, 0});
  CHECK(std::find(r.bytes.begin(), r.bytes.end(), std::pair<long long, double>{3 * 4 + 0, 1e6}) != r.bytes.end());
}

TEST_CASE("matrix cells: large jobs are binned, bytes summed per bin") {
  const Profile p = ring(1024, 10);
  std::vector<int> order(1024);
  for (int i = 0; i < 1024; ++i) order[i] = i;
  const report::MatrixCells m = report::comm_matrix_cells(p, order, 256);
  // 4 ranks per bin: the 3 pairs inside a bin sum on the diagonal, 255
  // bin-crossing pairs plus the wrap-around 1023 -> 0 give off-diagonal cells.
  CHECK(m.cells == 256);
  CHECK(m.bytes.size() == 256 + 256);
  CHECK(m.max_bytes == 30);
  CHECK(m.min_bytes == 10);
  const std::string svg = report::comm_matrix_svg(m, "big", 10, 30);
  CHECK(svg.find("1024 ranks in 256 x 256 cells") != std::string::npos);
}

TEST_CASE("matrix picture: an indexed PNG on the shared scale, node boxes on the diagonal") {
  const Profile p = ring(8, 1000);
  Mapping m;
  m.machine = *parse_machine("torus=4 node=core:2");
  m.placement = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {3, 0}, {3, 1}};
  const std::vector<int> order = report::mapped_order(m);
  const auto spans = report::node_spans(m, order);
  CHECK(spans == std::vector<std::pair<int, int>>{{0, 2}, {2, 4}, {4, 6}, {6, 8}});
  const std::string svg = report::comm_matrix_svg(report::comm_matrix_cells(p, order), "ring", 100, 1e6, spans);
  CHECK(count(svg, "href=\"data:image/png;base64,iVBORw0KGgo") == 1);  // "\x89PNG\r\n\x1a\n"
  CHECK(count(svg, "stroke=\"#0096c7\"") == 4);                       // one box per node
  CHECK(svg.find("blue boxes: the ranks of one node") != std::string::npos);
  CHECK(svg.find(">100 B<") != std::string::npos);  // the scale given, not the matrix's own
  CHECK(svg.find(">1.00 MB<") != std::string::npos);
  // Too many nodes for the cells: no boxes, and the picture says why.
  std::vector<std::pair<int, int>> many;
  for (int i = 0; i < 8; ++i) many.push_back({i, i + 1});
  const std::string dense = report::comm_matrix_svg(report::comm_matrix_cells(p, order), "ring", 100, 1e6, many);
  CHECK(count(dense, "stroke=\"#0096c7\"") == 0);
  CHECK(dense.find("8 nodes: too many to box at this size") != std::string::npos);
}

TEST_CASE("indexed PNG: signature, header, stored deflate with the scanlines, base64") {
  const std::string png = report::png_indexed(3, 2, {0, 1, 2, 2, 1, 0}, {0xffffff, 0x123456, 0x000004});
  REQUIRE(png.size() > 8);
  CHECK(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(png.substr(12, 4) == "IHDR");
  CHECK(png.substr(16, 8) == std::string("\0\0\0\3\0\0\0\2", 8));  // 3 x 2
  CHECK(png.find(std::string("PLTE\xff\xff\xff\x12\x34\x56\x00\x00\x04", 13)) != std::string::npos);
  // Scanlines behind filter byte 0, in one final stored block of 8 bytes.
  CHECK(png.find(std::string("IDAT\x78\x01\x01\x08\x00\xf7\xff\0\0\1\2\0\2\1\0", 19)) != std::string::npos);
  CHECK(png.substr(png.size() - 8, 4) == "IEND");
  CHECK(report::base64("Man") == "TWFu");
  CHECK(report::base64("Ma") == "TWE=");
  CHECK(report::base64("M") == "TQ==");
}

TEST_CASE("link-load picture: every existing connection drawn once, coloured by load") {
  auto t = Torus::create({4, 2, 2, 2}, {true, true, true, true}, {1, 1, 1, 1}, 1e9);
  REQUIRE(t.ok());
  std::vector<double> loads(static_cast<size_t>(t->link_slots()), 0.0);
  loads[t->link_index(0, 0, Direction::plus)] = 1e9;  // node 0 -> 1 busy for 1 s
  const std::string svg = report::link_load_svg(*t, loads, "desmos", 1.0);
  // In-tile lines: X ring has 2 directions per node, Y size-2 ring has one
  // "+" per node; 4 tiles (Z, K) of 4x2 nodes.
  const int x_lines = 4 * 2 * 2, y_lines = 4 * 2;
  CHECK(count(svg, "<line") == 4 * (x_lines + y_lines));
  CHECK(count(svg, "<circle") == 32);
  CHECK(count(svg, "<rect x=") == 32 * 2 + 32);  // Z+ and K+ per node, colour bar
  CHECK(count(svg, "stroke=\"#000004\"") == 1);  // the darkest colour: the busiest link only
  CHECK(svg.find("X+ from node 0: busy 1.00 s") != std::string::npos);
  CHECK(svg.find("X- into node 0: idle") != std::string::npos);
  CHECK(svg.find("Z=1 K=1") != std::string::npos);
}

TEST_CASE("link-load histogram: links counted per busy-time bin, idle links in the legend") {
  auto t = Torus::create({4}, {true}, {1}, 1e9);  // 8 directed links
  REQUIRE(t.ok());
  std::vector<double> a(static_cast<size_t>(t->link_slots()), 0.0), b = a;
  a[t->link_index(0, 0, Direction::plus)] = 2e9;  // 2 s
  a[t->link_index(1, 0, Direction::plus)] = 1e9;  // 1 s
  b[t->link_index(2, 0, Direction::minus)] = 5e8;  // 0.5 s
  const std::string svg = report::link_load_histogram_svg(*t, {a, b}, {"block", "rankmap"}, "links", 4);
  CHECK(count(svg, "fill=\"#8d99ae\"") == 2 + 1);  // block: two bars and its legend swatch
  CHECK(count(svg, "fill=\"#d1495b\"") == 1 + 1);
  CHECK(svg.find("block: busiest link 2.00 s, 2 links used, 6 idle") != std::string::npos);
  CHECK(svg.find("rankmap: busiest link 500 ms, 1 links used, 7 idle") != std::string::npos);
  CHECK(svg.find("block: 1 links busy 1.00 s to 1.50 s") != std::string::npos);
}

TEST_CASE("html page: verdict, coloured change, tips, legend, escaped") {
  report::Page page;
  page.title = "a & b";
  page.verdict = "rankmap vs block: hop-bytes \u221244%";
  page.notes = {"note <1>"};
  page.table.header = {"metric", "block", "rankmap", "change"};
  page.table.rows = {{"hop-bytes", "12", "7", "-42%"}, {"nodes <used>", "2", "2", "same"}};
  page.table.change = {"better", ""};
  page.table.tips = {"bytes x hops", ""};
  page.legend = {{"hop-bytes", "bytes x hops"}};
  page.figures = {{"fig", "<svg></svg>"}};
  const std::string html = report::html_page(page);
  CHECK(html.find("<title>a &amp; b</title>") != std::string::npos);
  CHECK(html.find("<p class=\"verdict\" id=\"verdict\">rankmap vs block: hop-bytes \u221244%</p>") != std::string::npos);
  CHECK(html.find("<td title=\"bytes x hops\">hop-bytes</td><td>12</td><td>7</td><td class=\"better\">-42%</td>") !=
        std::string::npos);
  CHECK(html.find("<td>nodes &lt;used&gt;</td>") != std::string::npos);
  CHECK(html.find("<dt>hop-bytes</dt><dd>bytes x hops</dd>") != std::string::npos);
  CHECK(html.find("<p class=\"notes\">note &lt;1&gt;</p>") != std::string::npos);
  CHECK(count(html, "<figure>") == 1);
}

TEST_CASE("mapped order sorts ranks by node then core") {
  Mapping m;
  m.machine = *parse_machine("torus=4 node=core:2");
  m.placement = {{2, 1}, {0, 1}, {2, 0}, {0, 0}};
  CHECK(report::mapped_order(m) == std::vector<int>{3, 1, 2, 0});
}
