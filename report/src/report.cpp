#include "rankmap/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <unordered_map>

#include "rankmap/machine.hpp"
#include "rankmap/text.hpp"

namespace rankmap::report {

namespace {

// Perceptually uniform, colour-blind safe (viridis), sampled at 9 stops.
constexpr double kViridis[9][3] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},  {44, 113, 142}, {33, 144, 141},
                                   {39, 173, 129}, {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};

std::string colour(double t) {
  t = std::clamp(t, 0.0, 1.0) * 8;
  const int i = std::min(7, static_cast<int>(t));
  const double f = t - i;
  char buf[8];
  int rgb[3];
  for (int c = 0; c < 3; ++c) rgb[c] = static_cast<int>(std::lround(kViridis[i][c] + f * (kViridis[i + 1][c] - kViridis[i][c])));
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buf;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int u = 0;
  while (b >= 1000 && u < 4) {
    b /= 1000;
    ++u;
  }
  return num(b) + " " + units[u];
}

// A horizontal colour bar from 0..1 with end labels.
std::string colour_bar(double x, double y, double w, const std::string& low, const std::string& high) {
  std::string s;
  const int steps = 32;
  for (int i = 0; i < steps; ++i)
    s += "<rect x=\"" + num(x + w * i / steps) + "\" y=\"" + num(y) + "\" width=\"" + num(w / steps + 0.5) +
         "\" height=\"10\" fill=\"" + colour((i + 0.5) / steps) + "\"/>";
  s += "<text x=\"" + num(x) + "\" y=\"" + num(y + 22) + "\" font-size=\"10\">" + escape(low) + "</text>";
  s += "<text x=\"" + num(x + w) + "\" y=\"" + num(y + 22) + "\" font-size=\"10\" text-anchor=\"end\">" + escape(high) + "</text>";
  return s;
}

}  // namespace

std::string escape(const std::string& text) { return text::xml_escape(text); }

std::vector<int> mapped_order(const Mapping& mapping) {
  std::vector<int> order(static_cast<size_t>(mapping.ranks()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const Placement& pa = mapping.placement[a];
    const Placement& pb = mapping.placement[b];
    return pa.node != pb.node ? pa.node < pb.node : pa.core < pb.core;
  });
  return order;
}

std::string comm_matrix_svg(const Profile& profile, const std::vector<int>& order, const std::string& title,
                            int max_cells) {
  const int ranks = profile.ranks;
  const int cells = std::max(1, std::min(ranks, max_cells));
  // position of each rank on the axes, then binned into cells
  std::vector<int> cell_of(static_cast<size_t>(ranks));
  for (int i = 0; i < ranks; ++i) cell_of[order[i]] = static_cast<int>(static_cast<long long>(i) * cells / ranks);
  std::unordered_map<long long, double> bytes;
  for (const auto* list : {&profile.p2p, &profile.one_sided})
    for (const PairTraffic& t : *list)
      if (t.bytes > 0) bytes[static_cast<long long>(cell_of[t.src]) * cells + cell_of[t.dst]] += static_cast<double>(t.bytes);
  double max_bytes = 0, min_bytes = 0;
  for (const auto& [key, b] : bytes) {
    max_bytes = std::max(max_bytes, b);
    min_bytes = min_bytes == 0 ? b : std::min(min_bytes, b);
  }

  const double plot = 512, margin = 44, cell = plot / cells;
  const double width = plot + 2 * margin, height = plot + margin + 70;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(height) +
                  "\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" font-family=\"sans-serif\">";
  s += "<title>" + escape(title) + "</title>";
  s += "<text x=\"" + num(margin) + "\" y=\"18\" font-size=\"13\">" + escape(title) + "</text>";
  s += "<rect x=\"" + num(margin) + "\" y=\"" + num(margin - 14) + "\" width=\"" + num(plot) + "\" height=\"" + num(plot) +
       "\" fill=\"#f4f4f4\" stroke=\"#888\"/>";
  const double log_min = std::log10(std::max(1.0, min_bytes)), log_max = std::log10(std::max(1.0, max_bytes));
  std::vector<std::pair<long long, double>> sorted(bytes.begin(), bytes.end());
  std::sort(sorted.begin(), sorted.end());  // deterministic output
  for (const auto& [key, b] : sorted) {
    const double row = static_cast<double>(key / cells), col = static_cast<double>(key % cells);
    const double t = log_max > log_min ? (std::log10(b) - log_min) / (log_max - log_min) : 1.0;
    s += "<rect x=\"" + num(margin + col * cell) + "\" y=\"" + num(margin - 14 + row * cell) + "\" width=\"" + num(cell) +
         "\" height=\"" + num(cell) + "\" fill=\"" + colour(t) + "\"/>";
  }
  s += "<text x=\"" + num(margin + plot / 2) + "\" y=\"" + num(margin + plot + 4) +
       "\" font-size=\"11\" text-anchor=\"middle\">receiver (position in this order)</text>";
  s += "<text x=\"12\" y=\"" + num(margin + plot / 2) + "\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 12 " +
       num(margin + plot / 2) + ")\">sender</text>";
  if (cells < ranks) {
    s += "<text x=\"" + num(margin + plot) + "\" y=\"18\" font-size=\"10\" text-anchor=\"end\">" + std::to_string(ranks) +
         " ranks in " + std::to_string(cells) + " bins</text>";
  }
  s += colour_bar(margin, margin + plot + 16, plot, human_bytes(min_bytes) + " (log scale)", human_bytes(max_bytes));
  s += "</svg>";
  return s;
}

std::string link_load_svg(const Torus& torus, const std::vector<double>& loads, const std::string& title,
                          double scale_max) {
  const int nx = torus.size(0), ny = torus.dims() > 1 ? torus.size(1) : 1;
  int tiles = 1;
  for (int d = 2; d < torus.dims(); ++d) tiles *= torus.size(d);
  const int tile_cols = std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(tiles)))));
  const int tile_rows = (tiles + tile_cols - 1) / tile_cols;
  const double pitch = 46, pad = 26;
  const double tile_w = nx * pitch + pad, tile_h = ny * pitch + pad + 14;
  const double top = 34;
  const double width = std::max(360.0, tile_cols * tile_w + 20), height = top + tile_rows * tile_h + 60;
  if (scale_max <= 0) scale_max = 1;

  auto rel = [&](int link) { return link >= 0 && torus.link_exists(link) ? loads[link] / torus.link_capacity(link) : 0.0; };
  auto busy = [&](double r) { return "busy " + text::format_duration(r) + " (bytes / capacity)"; };
  auto stroke = [&](double r) {
    return "stroke=\"" + (r > 0 ? colour(r / scale_max) : std::string("#d0d0d0")) + "\" stroke-width=\"" + num(r > 0 ? 4 : 1.5) + "\"";
  };

  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(height) +
                  "\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" font-family=\"sans-serif\">";
  s += "<title>" + escape(title) + "</title>";
  s += "<text x=\"10\" y=\"18\" font-size=\"13\">" + escape(title) + "</text>";
  for (int tile = 0; tile < tiles; ++tile) {
    // coordinates of dimensions 2.. for this tile
    std::vector<int> c(static_cast<size_t>(torus.dims()), 0);
    int rest = tile;
    std::string label;
    for (int d = 2; d < torus.dims(); ++d) {
      c[d] = rest % torus.size(d);
      rest /= torus.size(d);
      label += (label.empty() ? "" : " ") + dimension_name(d) + "=" + std::to_string(c[d]);
    }
    const double ox = 10 + (tile % tile_cols) * tile_w, oy = top + (tile / tile_cols) * tile_h;
    s += "<g><text x=\"" + num(ox) + "\" y=\"" + num(oy + 10) + "\" font-size=\"10\">" + escape(label.empty() ? "X-Y plane" : label) + "</text>";
    auto pos = [&](int x, int y, double& px, double& py) {
      px = ox + pad / 2 + x * pitch + 8;
      py = oy + 18 + y * pitch + 8;
    };
    for (int y = 0; y < ny; ++y) {
      for (int x = 0; x < nx; ++x) {
        c[0] = x;
        if (torus.dims() > 1) c[1] = y;
        const int node = torus.node_at(c);
        double px, py;
        pos(x, y, px, py);
        // In-tile links: "+" drawn slightly above/left of the "-" one so both directions show.
        for (int d = 0; d < std::min(2, torus.dims()); ++d) {
          if (torus.size(d) == 1) continue;
          const int coord = d == 0 ? x : y;
          const bool last = coord == torus.size(d) - 1;
          if (last && !torus.wraps(d)) continue;
          const double len = last ? pitch * 0.45 : pitch;  // wrap-around links drawn as stubs
          const double dx = d == 0 ? len : 0, dy = d == 1 ? len : 0;
          const double off = 3;
          const int plus = torus.link_index(node, d, Direction::plus);
          const int next = torus.neighbor(node, d, Direction::plus);
          const int minus = next >= 0 ? torus.link_index(next, d, Direction::minus) : -1;
          const double rp = rel(plus), rm = torus.link_exists(minus) ? rel(minus) : -1;
          s += "<line x1=\"" + num(px - (d == 1 ? off : 0)) + "\" y1=\"" + num(py - (d == 0 ? off : 0)) + "\" x2=\"" +
               num(px + dx - (d == 1 ? off : 0)) + "\" y2=\"" + num(py + dy - (d == 0 ? off : 0)) + "\" " + stroke(rp) +
               "><title>" + escape(dimension_name(d) + "+ from node " + std::to_string(node) + ": " + busy(rp)) +
               "</title></line>";
          if (rm >= 0)
            s += "<line x1=\"" + num(px + (d == 1 ? off : 0)) + "\" y1=\"" + num(py + (d == 0 ? off : 0)) + "\" x2=\"" +
                 num(px + dx + (d == 1 ? off : 0)) + "\" y2=\"" + num(py + dy + (d == 0 ? off : 0)) + "\" " + stroke(rm) +
                 "><title>" + escape(dimension_name(d) + "- into node " + std::to_string(node) + ": " + busy(rm)) +
                 "</title></line>";
        }
        // Links along the tile dimensions (Z, K, ...): one small square per dimension and direction.
        int k = 0;
        for (int d = 2; d < torus.dims(); ++d) {
          for (Direction dir : {Direction::plus, Direction::minus}) {
            const int link = torus.link_index(node, d, dir);
            if (!torus.link_exists(link)) continue;
            const double r = rel(link);
            s += "<rect x=\"" + num(px + 8 + 6 * (k % 4)) + "\" y=\"" + num(py + 8 + 6 * (k / 4)) +
                 "\" width=\"5\" height=\"5\" fill=\"" + (r > 0 ? colour(r / scale_max) : std::string("#d0d0d0")) + "\"><title>" +
                 escape(dimension_name(d) + (dir == Direction::plus ? "+" : "-") + " from node " + std::to_string(node) + ": " +
                        busy(r)) + "</title></rect>";
            ++k;
          }
        }
        s += "<circle cx=\"" + num(px) + "\" cy=\"" + num(py) + "\" r=\"6\" fill=\"#fff\" stroke=\"#333\"><title>node " +
             std::to_string(node) + "</title></circle>";
      }
    }
    s += "</g>";
  }
  s += colour_bar(10, height - 40, std::min(width - 20, 400.0), "link busy time (bytes / capacity): 0",
                  text::format_duration(scale_max));
  s += "</svg>";
  return s;
}

std::string html_page(const std::string& title, const std::vector<std::string>& notes, const Table& table,
                      const std::vector<Figure>& figures) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title) + "</title>\n"
                  "<style>body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse}"
                  "td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}th{background:#eee}"
                  "td:first-child,th:first-child{text-align:left}figure{display:inline-block;margin:1em;vertical-align:top}"
                  "figcaption{font-size:0.9em;color:#444;max-width:560px}</style></head><body>\n";
  h += "<h1>" + escape(title) + "</h1>\n";
  for (const std::string& n : notes) h += "<p>" + escape(n) + "</p>\n";
  if (!table.header.empty()) {
    h += "<table id=\"metrics\"><tr>";
    for (const std::string& c : table.header) h += "<th>" + escape(c) + "</th>";
    h += "</tr>\n";
    for (const auto& row : table.rows) {
      h += "<tr>";
      for (const std::string& c : row) h += "<td>" + escape(c) + "</td>";
      h += "</tr>\n";
    }
    h += "</table>\n";
  }
  for (const Figure& f : figures) h += "<figure>" + f.svg + "<figcaption>" + escape(f.caption) + "</figcaption></figure>\n";
  h += "</body></html>\n";
  return h;
}

}  // namespace rankmap::report
