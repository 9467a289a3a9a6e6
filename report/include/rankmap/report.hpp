// Pictures of a profile and a placement, as plain SVG, and one HTML page that
// bundles them with a metrics table. No plotting stack: the SVG is written by
// hand so a report opens in any browser and diffs as text.
#pragma once

#include <string>
#include <vector>

#include "rankmap/mapping.hpp"
#include "rankmap/profile.hpp"
#include "rankmap/torus.hpp"

namespace rankmap::report {

// Ranks in the order a placement puts them: by node, then by core.
std::vector<int> mapped_order(const Mapping& mapping);

// Heatmap of bytes sent (p2p + one-sided) from row rank to column rank, log
// colour scale. order[i] is the rank drawn at row/column i. Large jobs are
// binned into at most max_cells x max_cells cells (sums of bytes).
std::string comm_matrix_svg(const Profile& profile, const std::vector<int>& order, const std::string& title,
                            int max_cells = 256);

// The torus with the load of every directed connection (loads indexed like
// Torus::link_index), coloured by busy time = load / capacity (seconds) on a
// scale from 0 to scale_max (pass the same scale_max to pictures that will be
// compared, so equal colours mean equal load).
// X and Y are drawn inside a tile; each tile is one combination of the
// remaining coordinates (Z, K, ...), so a 4D torus is a grid of 2D tiles.
std::string link_load_svg(const Torus& torus, const std::vector<double>& loads, const std::string& title,
                          double scale_max);

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

struct Figure {
  std::string caption;
  std::string svg;
};

// A self-contained HTML page: title, notes (plain text lines), the table and
// the figures.
std::string html_page(const std::string& title, const std::vector<std::string>& notes, const Table& table,
                      const std::vector<Figure>& figures);

// Escapes text for HTML and SVG (text::xml_escape).
std::string escape(const std::string& text);

}  // namespace rankmap::report
