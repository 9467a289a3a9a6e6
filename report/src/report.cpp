#include "rankmap/report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <unordered_map>

#include "rankmap/machine.hpp"
#include "rankmap/text.hpp"

namespace rankmap::report {

namespace {

// Light = little, dark = much: magma (perceptually uniform, colour-blind
// safe) reversed, starting at its light orange so that the lightest traffic
// still shows on the white of "no traffic".
constexpr int kStops = 8;
constexpr double kScale[kStops][3] = {{254, 194, 135}, {251, 135, 97}, {229, 80, 100}, {181, 54, 122},
                                      {129, 37, 129},  {79, 18, 123},  {28, 16, 68},   {0, 0, 4}};

unsigned colour_rgb(double t) {
  t = std::clamp(t, 0.0, 1.0) * (kStops - 1);
  const int i = std::min(kStops - 2, static_cast<int>(t));
  const double f = t - i;
  unsigned rgb = 0;
  for (int c = 0; c < 3; ++c)
    rgb = rgb << 8 | static_cast<unsigned>(std::lround(kScale[i][c] + f * (kScale[i + 1][c] - kScale[i][c])));
  return rgb;
}

std::string hex(unsigned rgb) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%06x", rgb & 0xffffffu);
  return buf;
}

std::string colour(double t) { return hex(colour_rgb(t)); }

constexpr const char* kIdle = "#d0d0d0";
constexpr const char* kNodeBox = "#0096c7";
// One colour per mapping in the histogram: the baseline grey-blue.
constexpr const char* kSeries[] = {"#8d99ae", "#d1495b", "#00798c", "#edae49", "#66a182"};

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string svg_open(double width, double height, const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(height) +
         "\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" font-family=\"sans-serif\"><title>" + escape(title) +
         "</title>";
}

std::string label(double x, double y, const std::string& s, int size = 10, const char* anchor = "start") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + std::to_string(size) + "\" text-anchor=\"" +
         anchor + "\">" + escape(s) + "</text>";
}

// A horizontal colour bar from 0..1 with end labels and a caption above.
std::string colour_bar(double x, double y, double w, const std::string& caption, const std::string& low,
                       const std::string& high) {
  std::string s = label(x, y - 4, caption, 11);
  const int steps = 32;
  for (int i = 0; i < steps; ++i)
    s += "<rect x=\"" + num(x + w * i / steps) + "\" y=\"" + num(y) + "\" width=\"" + num(w / steps + 0.5) +
         "\" height=\"10\" fill=\"" + colour((i + 0.5) / steps) + "\"/>";
  s += label(x, y + 22, low) + label(x + w, y + 22, high, 10, "end");
  return s;
}

// --- a minimal PNG writer: indexed colour, stored (uncompressed) deflate.
std::uint32_t crc32(const std::string& data, std::uint32_t crc = 0) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (unsigned char b : data) crc = table[(crc ^ b) & 0xff] ^ (crc >> 8);
  return ~crc;
}

void put32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}

void chunk(std::string& png, const char* type, const std::string& data) {
  put32(png, static_cast<std::uint32_t>(data.size()));
  const std::string body = std::string(type, 4) + data;
  png += body;
  put32(png, crc32(body));
}

}  // namespace

std::string escape(const std::string& text) { return text::xml_escape(text); }

std::string png_indexed(int width, int height, const std::vector<unsigned char>& pixels,
                        const std::vector<unsigned>& palette) {
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  put32(ihdr, static_cast<std::uint32_t>(width));
  put32(ihdr, static_cast<std::uint32_t>(height));
  ihdr += std::string("\x08\x03\x00\x00\x00", 5);  // 8-bit indices, colour type 3 (palette)
  chunk(png, "IHDR", ihdr);
  std::string plte;
  for (unsigned rgb : palette) plte += {static_cast<char>(rgb >> 16 & 0xff), static_cast<char>(rgb >> 8 & 0xff), static_cast<char>(rgb & 0xff)};
  chunk(png, "PLTE", plte);
  std::string raw;  // each scanline: filter type 0, then the indices
  for (int y = 0; y < height; ++y) {
    raw += '\0';
    raw.append(reinterpret_cast<const char*>(pixels.data()) + static_cast<size_t>(y) * width, static_cast<size_t>(width));
  }
  std::string z = "\x78\x01";  // zlib header, no compression
  for (size_t pos = 0; pos < raw.size() || pos == 0; pos += 65535) {
    const size_t n = std::min<size_t>(65535, raw.size() - pos);
    const bool last = pos + n >= raw.size();
    z += static_cast<char>(last ? 1 : 0);
    z += {static_cast<char>(n & 0xff), static_cast<char>(n >> 8), static_cast<char>(~n & 0xff), static_cast<char>(~n >> 8 & 0xff)};
    z.append(raw, pos, n);
    if (last) break;
  }
  std::uint32_t a = 1, b = 0;  // Adler-32
  for (unsigned char c : raw) {
    a = (a + c) % 65521;
    b = (b + a) % 65521;
  }
  put32(z, b << 16 | a);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", "");
  return png;
}

std::string base64(const std::string& bytes) {
  static const char* const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 2]);
    out += digits[v >> 18 & 63];
    out += digits[v >> 12 & 63];
    out += i + 1 < bytes.size() ? digits[v >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? digits[v & 63] : '=';
  }
  return out;
}

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

std::vector<std::pair<int, int>> node_spans(const Mapping& mapping, const std::vector<int>& order) {
  std::vector<std::pair<int, int>> spans;
  for (int i = 0; i < static_cast<int>(order.size()); ++i) {
    if (i == 0 || mapping.placement[order[i]].node != mapping.placement[order[i - 1]].node) spans.push_back({i, i + 1});
    else spans.back().second = i + 1;
  }
  return spans;
}

MatrixCells comm_matrix_cells(const Profile& profile, const std::vector<int>& order, int max_cells) {
  MatrixCells m;
  m.ranks = profile.ranks;
  m.cells = std::max(1, std::min(profile.ranks, max_cells));
  std::vector<int> cell_of(static_cast<size_t>(profile.ranks));
  for (int i = 0; i < profile.ranks; ++i)
    cell_of[order[i]] = static_cast<int>(static_cast<long long>(i) * m.cells / profile.ranks);
  std::unordered_map<long long, double> bytes;
  for (const auto* list : {&profile.p2p, &profile.one_sided})
    for (const PairTraffic& t : *list)
      if (t.bytes > 0) bytes[static_cast<long long>(cell_of[t.src]) * m.cells + cell_of[t.dst]] += static_cast<double>(t.bytes);
  m.bytes.assign(bytes.begin(), bytes.end());
  std::sort(m.bytes.begin(), m.bytes.end());  // deterministic output
  for (const auto& [key, b] : m.bytes) {
    m.max_bytes = std::max(m.max_bytes, b);
    m.min_bytes = m.min_bytes == 0 ? b : std::min(m.min_bytes, b);
  }
  return m;
}

std::string comm_matrix_svg(const MatrixCells& m, const std::string& title, double scale_min, double scale_max,
                            const std::vector<std::pair<int, int>>& spans) {
  const int cells = m.cells;
  // Palette: 0 white (no traffic), 1..255 the colour scale.
  std::vector<unsigned> palette{0xffffffu};
  for (int i = 0; i < 255; ++i) palette.push_back(colour_rgb(i / 254.0));
  std::vector<unsigned char> pixels(static_cast<size_t>(cells) * cells, 0);
  const double log_min = std::log10(std::max(1.0, scale_min)), log_max = std::log10(std::max(1.0, scale_max));
  for (const auto& [key, b] : m.bytes) {
    const double t = log_max > log_min ? (std::log10(std::max(1.0, b)) - log_min) / (log_max - log_min) : 1.0;
    pixels[static_cast<size_t>(key)] = static_cast<unsigned char>(1 + std::lround(std::clamp(t, 0.0, 1.0) * 254));
  }

  const double plot = 400, left = 46, top = 30, cell = plot / cells;
  const double width = plot + left + 16, height = top + plot + 100;
  std::string s = svg_open(width, height, title);
  s += label(left, 18, title, 13);
  s += "<image x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(plot) + "\" height=\"" + num(plot) +
       "\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64," +
       base64(png_indexed(cells, cells, pixels, palette)) + "\"/>";
  // Node boxes, when each is at least two cells wide.
  const bool boxes = !spans.empty() && static_cast<int>(spans.size()) * 2 <= cells;
  if (boxes) {
    for (const auto& [first, last] : spans) {
      const double a = static_cast<double>(static_cast<long long>(first) * cells / m.ranks) * cell;
      const double b = static_cast<double>((static_cast<long long>(last) * cells + m.ranks - 1) / m.ranks) * cell;
      s += "<rect x=\"" + num(left + a) + "\" y=\"" + num(top + a) + "\" width=\"" + num(b - a) + "\" height=\"" +
           num(b - a) + "\" fill=\"none\" stroke=\"" + kNodeBox + "\" stroke-width=\"1.2\"/>";
    }
  }
  s += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(plot) + "\" height=\"" + num(plot) +
       "\" fill=\"none\" stroke=\"#888\"/>";
  s += label(left + plot / 2, top + plot + 14, "receiver", 11, "middle");
  s += "<text x=\"14\" y=\"" + num(top + plot / 2) + "\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 14 " +
       num(top + plot / 2) + ")\">sender</text>";
  std::string note = boxes ? "blue boxes: the ranks of one node" : "";
  if (!spans.empty() && !boxes) note = std::to_string(spans.size()) + " nodes: too many to box at this size";
  if (!note.empty()) s += label(left + plot, top + plot + 28, note, 10, "end");
  if (cells < m.ranks)
    s += label(left, top + plot + 28, std::to_string(m.ranks) + " ranks in " + std::to_string(cells) + " x " +
                                          std::to_string(cells) + " cells");
  s += colour_bar(left, top + plot + 58, plot, "bytes sent per cell (log scale; white: none)",
                  text::human(scale_min, "B"), text::human(scale_max, "B"));
  s += "</svg>";
  return s;
}

std::string comm_matrix_svg(const Profile& profile, const std::vector<int>& order, const std::string& title,
                            int max_cells) {
  const MatrixCells m = comm_matrix_cells(profile, order, max_cells);
  return comm_matrix_svg(m, title, m.min_bytes, m.max_bytes);
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
  const double width = std::max(420.0, tile_cols * tile_w + 20), height = top + tile_rows * tile_h + 64;
  if (scale_max <= 0) scale_max = 1;

  auto rel = [&](int link) { return link >= 0 && torus.link_exists(link) ? loads[link] / torus.link_capacity(link) : 0.0; };
  auto busy = [&](double r) { return r > 0 ? "busy " + text::human_seconds(r) : std::string("idle"); };
  auto stroke = [&](double r) {
    return "stroke=\"" + (r > 0 ? colour(r / scale_max) : std::string(kIdle)) + "\" stroke-width=\"" + num(r > 0 ? 4 : 1.5) + "\"";
  };

  std::string s = svg_open(width, height, title);
  s += label(10, 18, title, 13);
  for (int tile = 0; tile < tiles; ++tile) {
    // coordinates of dimensions 2.. for this tile
    std::vector<int> c(static_cast<size_t>(torus.dims()), 0);
    int rest = tile;
    std::string name;
    for (int d = 2; d < torus.dims(); ++d) {
      c[d] = rest % torus.size(d);
      rest /= torus.size(d);
      name += (name.empty() ? "" : " ") + dimension_name(d) + "=" + std::to_string(c[d]);
    }
    const double ox = 10 + (tile % tile_cols) * tile_w, oy = top + (tile / tile_cols) * tile_h;
    s += "<g>" + label(ox, oy + 10, name.empty() ? "X-Y plane" : name);
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
                 "\" width=\"5\" height=\"5\" fill=\"" + (r > 0 ? colour(r / scale_max) : std::string(kIdle)) + "\"><title>" +
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
  s += colour_bar(10, height - 34, std::min(width - 20, 400.0),
                  "link busy time = bytes / link bandwidth (thin grey: idle)",
                  "0", text::human_seconds(scale_max));
  s += "</svg>";
  return s;
}

std::string link_load_histogram_svg(const Network& network, const std::vector<std::vector<double>>& loads,
                                    const std::vector<std::string>& names, const std::string& title, int bins) {
  const size_t series = loads.size();
  double top_load = 0;
  std::vector<std::vector<double>> busy(series);
  for (size_t m = 0; m < series; ++m)
    for (int link = 0; link < network.link_slots(); ++link)
      if (network.link_exists(link)) {
        const double r = loads[m][static_cast<size_t>(link)] / network.link_capacity(link);
        busy[m].push_back(r);
        top_load = std::max(top_load, r);
      }
  if (top_load <= 0) top_load = 1;
  std::vector<std::vector<long long>> counts(series, std::vector<long long>(static_cast<size_t>(bins), 0));
  std::vector<long long> idle(series, 0);
  long long top_count = 1;
  for (size_t m = 0; m < series; ++m)
    for (double r : busy[m]) {
      if (r <= 0) {
        ++idle[m];
        continue;
      }
      const int b = std::min(bins - 1, static_cast<int>(r / top_load * bins));
      top_count = std::max(top_count, ++counts[m][static_cast<size_t>(b)]);
    }

  const double left = 56, top = 34, plot_w = 560, plot_h = 200;
  const double width = left + plot_w + 20, height = top + plot_h + 60 + 16.0 * static_cast<double>(series);
  std::string s = svg_open(width, height, title);
  s += label(10, 18, title, 13);
  const double group = plot_w / bins, bar = group * 0.85 / static_cast<double>(std::max<size_t>(1, series));
  for (size_t m = 0; m < series; ++m)
    for (int b = 0; b < bins; ++b) {
      const long long n = counts[m][static_cast<size_t>(b)];
      if (n == 0) continue;
      const double h = std::max(1.0, plot_h * static_cast<double>(n) / static_cast<double>(top_count));
      s += "<rect x=\"" + num(left + b * group + static_cast<double>(m) * bar) + "\" y=\"" + num(top + plot_h - h) +
           "\" width=\"" + num(bar) + "\" height=\"" + num(h) + "\" fill=\"" + kSeries[m % 5] + "\"><title>" +
           escape(names[m] + ": " + std::to_string(n) + " links busy " + text::human_seconds(b * top_load / bins) + " to " +
                  text::human_seconds((b + 1) * top_load / bins)) +
           "</title></rect>";
    }
  s += "<line x1=\"" + num(left) + "\" y1=\"" + num(top + plot_h) + "\" x2=\"" + num(left + plot_w) + "\" y2=\"" +
       num(top + plot_h) + "\" stroke=\"#333\"/>";
  s += "<line x1=\"" + num(left) + "\" y1=\"" + num(top) + "\" x2=\"" + num(left) + "\" y2=\"" + num(top + plot_h) +
       "\" stroke=\"#333\"/>";
  s += label(left - 4, top + 8, std::to_string(top_count), 10, "end") + label(left - 4, top + plot_h, "0", 10, "end");
  s += "<text x=\"14\" y=\"" + num(top + plot_h / 2) + "\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 14 " +
       num(top + plot_h / 2) + ")\">links</text>";
  s += label(left, top + plot_h + 14, "0") + label(left + plot_w / 2, top + plot_h + 14, text::human_seconds(top_load / 2), 10, "middle") +
       label(left + plot_w, top + plot_h + 14, text::human_seconds(top_load), 10, "end");
  s += label(left + plot_w / 2, top + plot_h + 30, "link busy time = bytes / link bandwidth (right: the bottleneck)", 11, "middle");
  for (size_t m = 0; m < series; ++m) {
    const double y = top + plot_h + 46 + 16.0 * static_cast<double>(m);
    const double busiest = busy[m].empty() ? 0 : *std::max_element(busy[m].begin(), busy[m].end());
    s += "<rect x=\"" + num(left) + "\" y=\"" + num(y - 9) + "\" width=\"10\" height=\"10\" fill=\"" + kSeries[m % 5] + "\"/>";
    s += label(left + 16, y, names[m] + ": busiest link " + text::human_seconds(busiest) + ", " +
                                 std::to_string(busy[m].size() - static_cast<size_t>(idle[m])) + " links used, " +
                                 std::to_string(idle[m]) + " idle", 11);
  }
  s += "</svg>";
  return s;
}

std::string html_page(const Page& page) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(page.title) +
                  "</title>\n<style>"
                  "body{font-family:sans-serif;margin:1.5em 2em;max-width:1180px;color:#222}"
                  "h1{font-size:1.4em;margin:0 0 .3em}"
                  ".verdict{font-size:1.35em;font-weight:bold;margin:.4em 0 .6em;padding:.4em .6em;"
                  "background:#f1f6fb;border-left:5px solid #0096c7}"
                  ".advice{font-size:1.1em;margin:-.3em 0 .6em;padding:.2em .6em}"
                  ".notes{color:#555;margin:.2em 0}"
                  "table{border-collapse:collapse;margin:.8em 0}"
                  "td,th{border:1px solid #ccc;padding:3px 10px;text-align:right}th{background:#eee}"
                  "td:first-child,th:first-child{text-align:left}"
                  "td.better{background:#d8f3dc;color:#1b4332;font-weight:bold}"
                  "td.worse{background:#ffd9d9;color:#7f1d1d;font-weight:bold}"
                  "dl{display:grid;grid-template-columns:max-content auto;gap:2px 14px;font-size:.92em;max-width:1100px}"
                  "dt{font-weight:bold}dd{margin:0;color:#444}"
                  "figure{display:inline-block;margin:.6em 1em .6em 0;vertical-align:top;max-width:100%}"
                  "figure svg{max-width:100%;height:auto}"
                  "figcaption{font-size:.9em;color:#444;max-width:540px}</style></head><body>\n";
  h += "<h1>" + escape(page.title) + "</h1>\n";
  if (!page.verdict.empty()) h += "<p class=\"verdict\" id=\"verdict\">" + escape(page.verdict) + "</p>\n";
  if (!page.advice.empty()) h += "<p class=\"advice\" id=\"advice\">" + escape(page.advice) + "</p>\n";
  for (const std::string& n : page.notes) h += "<p class=\"notes\">" + escape(n) + "</p>\n";
  const Table& table = page.table;
  if (!table.header.empty()) {
    h += "<table id=\"metrics\"><tr>";
    for (const std::string& c : table.header) h += "<th>" + escape(c) + "</th>";
    h += "</tr>\n";
    for (size_t r = 0; r < table.rows.size(); ++r) {
      const auto& row = table.rows[r];
      h += "<tr>";
      for (size_t i = 0; i < row.size(); ++i) {
        std::string attributes;
        if (i == 0 && r < table.tips.size() && !table.tips[r].empty()) attributes += " title=\"" + escape(table.tips[r]) + "\"";
        if (i + 1 == row.size() && i > 0 && r < table.change.size() && !table.change[r].empty())
          attributes += " class=\"" + table.change[r] + "\"";
        h += "<td" + attributes + ">" + escape(row[i]) + "</td>";
      }
      h += "</tr>\n";
    }
    h += "</table>\n";
  }
  if (!page.legend.empty()) {
    h += "<dl id=\"legend\">";
    for (const auto& [term, meaning] : page.legend) h += "<dt>" + escape(term) + "</dt><dd>" + escape(meaning) + "</dd>";
    h += "</dl>\n";
  }
  for (const Figure& f : page.figures) h += "<figure>" + f.svg + "<figcaption>" + escape(f.caption) + "</figcaption></figure>\n";
  h += "</body></html>\n";
  return h;
}

std::string html_page(const std::string& title, const std::vector<std::string>& notes, const Table& table,
                      const std::vector<Figure>& figures) {
  Page page;
  page.title = title;
  page.notes = notes;
  page.table = table;
  page.figures = figures;
  return html_page(page);
}

}  // namespace rankmap::report
