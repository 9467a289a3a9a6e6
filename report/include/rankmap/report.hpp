// Pictures of a profile and a placement, as plain SVG, and one HTML page that
// bundles them with a verdict, a metrics table and a legend. No plotting
// stack: the SVG is written by hand so a report opens in any browser and
// diffs as text; the only raster is the communication matrix, an indexed PNG
// inside its SVG (a 256 x 256 matrix is ~90 kB whatever the traffic).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "rankmap/machine.hpp"
#include "rankmap/mapping.hpp"
#include "rankmap/profile.hpp"
#include "rankmap/result.hpp"
#include "rankmap/torus.hpp"

namespace rankmap::report {

// Ranks in the order a placement puts them: by node, then by core.
std::vector<int> mapped_order(const Mapping& mapping);

// Where each node's ranks lie in `order`: [first, last) positions, one span
// per node in order of appearance (the boxes drawn on the matrix diagonal).
std::vector<std::pair<int, int>> node_spans(const Mapping& mapping, const std::vector<int>& order);

// Bytes sent (p2p + one-sided) from row rank to column rank, drawn in `order`
// (order[i] is the rank at row/column i) and binned into at most max_cells x
// max_cells cells (sums of bytes).
struct MatrixCells {
  int ranks = 0;
  int cells = 0;
  std::vector<std::pair<long long, double>> bytes;  // (row * cells + column, bytes), sorted, nonzero
  double min_bytes = 0, max_bytes = 0;               // over nonzero cells
};
MatrixCells comm_matrix_cells(const Profile& profile, const std::vector<int>& order, int max_cells = 256);

// The heatmap: log colour scale from scale_min to scale_max bytes (pass the
// same range to matrices that will be compared: equal colours mean equal
// bytes), light = little, dark = much, white = none. `spans` (node_spans)
// are drawn as boxes on the diagonal: traffic inside a box stays in a node.
std::string comm_matrix_svg(const MatrixCells& cells, const std::string& title, double scale_min, double scale_max,
                            const std::vector<std::pair<int, int>>& spans = {});
// One matrix on its own scale, without node boxes.
std::string comm_matrix_svg(const Profile& profile, const std::vector<int>& order, const std::string& title,
                            int max_cells = 256);

// The torus with the load of every directed connection (loads indexed like
// Torus::link_index), coloured by busy time = load / capacity (seconds) on a
// scale from 0 to scale_max (pass the same scale_max to pictures that will be
// compared, so equal colours mean equal load); idle links are thin and grey.
// X and Y are drawn inside a tile; each tile is one combination of the
// remaining coordinates (Z, K, ...), so a 4D torus is a grid of 2D tiles.
// Meant for up to a few hundred nodes (kMaxNodesDrawn); above, and on
// networks other than a torus, use the histogram.
constexpr int kMaxNodesDrawn = 256;
std::string link_load_svg(const Torus& torus, const std::vector<double>& loads, const std::string& title,
                          double scale_max);

// Compact form for large machines and any network: how many links are how busy, one bar
// colour per mapping, on one axis from 0 to the busiest link of any mapping.
// Idle links are counted in the legend, not drawn.
std::string link_load_histogram_svg(const Network& network, const std::vector<std::vector<double>>& loads,
                                    const std::vector<std::string>& names, const std::string& title, int bins = 24);

// A node of the machine as hwloc draws it (lstopo --of svg, run as a child
// process: `lstopo` names the program): one of kind `kind` (NodeKinds; 0 on
// a machine of one kind). Fails if it cannot be run.
Result<std::string> node_svg(const Machine& machine, int kind = 0, const std::string& lstopo = "lstopo-no-graphics");

// A metrics table. `change` classes colour the last cell of a row: "better",
// "worse" or "" (no direction); `tips` are shown on hover of the first cell.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> change;  // per row, may be empty
  std::vector<std::string> tips;    // per row, may be empty
};

struct Figure {
  std::string caption;
  std::string svg;
};

// A self-contained HTML page: title, the verdict (one line, large; may be
// empty), the advice under it (whether a relaunch is worth it; may be empty),
// notes (plain text lines), the table, a legend (term, meaning) and the
// figures.
struct Page {
  std::string title;
  std::string verdict;
  std::string advice;
  std::vector<std::string> notes;
  Table table;
  std::vector<std::pair<std::string, std::string>> legend;
  std::vector<Figure> figures;
};
std::string html_page(const Page& page);
std::string html_page(const std::string& title, const std::vector<std::string>& notes, const Table& table,
                      const std::vector<Figure>& figures);

// Escapes text for HTML and SVG (text::xml_escape).
std::string escape(const std::string& text);

// An indexed-colour PNG (stored, uncompressed deflate): width x height
// palette indices, row by row; palette entries are 0xRRGGBB. Exposed for tests.
std::string png_indexed(int width, int height, const std::vector<unsigned char>& pixels,
                        const std::vector<unsigned>& palette);
std::string base64(const std::string& bytes);

}  // namespace rankmap::report
