// Recognising a periodic 2D or 3D process grid from the communication graph
// alone, whatever the ranks' numbering (docs/mapper.md, step 1, Cartesian
// starts). The Cartesian starts read the grid from a row-major numbering;
// a grid code whose ranks are numbered otherwise (a space-filling curve, a
// reordering communicator, a shuffle) keeps its grid, and this finds it.
//
// The heavy graph (each rank's edges of at least half its heaviest) of a
// torus grid whose sides are all >= 5 has a local signature: at every rank,
// two neighbours along different dimensions close a square (one common
// neighbour besides the rank), two along the same dimension do not. The
// directions are read at one rank, carried to every rank across the squares
// (an edge is parallel to the opposite edge of its square), the sides are
// walked, and every edge is checked against the coordinates found; any
// mismatch (a mesh, a side below 5, extra heavy edges) gives no grid.
#include <algorithm>
#include <cstdint>
#include <queue>

#include "detail.hpp"

namespace rankmap::detail {

namespace {

// Rank v's heavy neighbours, sorted; symmetric or the graph is no grid.
std::vector<std::vector<int>> heavy_neighbours(const CommGraph& g) {
  std::vector<std::vector<int>> h(static_cast<size_t>(g.vertices));
  for (int v = 0; v < g.vertices; ++v) {
    double top = 0;
    for (auto e = g.xadj[v]; e < g.xadj[v + 1]; ++e) top = std::max(top, g.weight[e]);
    for (auto e = g.xadj[v]; e < g.xadj[v + 1]; ++e)
      if (g.adjncy[e] != v && g.weight[e] >= 0.5 * top && g.weight[e] > 0) h[v].push_back(g.adjncy[e]);
    std::sort(h[v].begin(), h[v].end());
    h[v].erase(std::unique(h[v].begin(), h[v].end()), h[v].end());
  }
  return h;
}

bool adjacent(const std::vector<std::vector<int>>& h, int a, int b) {
  return std::binary_search(h[a].begin(), h[a].end(), b);
}

// The common neighbours of a and b other than `besides`.
int common_count(const std::vector<std::vector<int>>& h, int a, int b, int besides, int& one) {
  int count = 0;
  for (int c : h[a])
    if (c != besides && adjacent(h, b, c)) {
      one = c;
      ++count;
    }
  return count;
}

}  // namespace

std::vector<int> torus_grid_order(const CommGraph& graph, std::vector<int>& dims) {
  dims.clear();
  const int n = graph.vertices;
  if (n < 25) return {};
  const auto h = heavy_neighbours(graph);
  const size_t degree = h[0].size();
  if (degree != 4 && degree != 6) return {};
  for (int v = 0; v < n; ++v) {
    if (h[v].size() != degree) return {};
    for (int u : h[v])
      if (!adjacent(h, u, v)) return {};
  }
  const int d = static_cast<int>(degree) / 2;
  // code[v][i]: direction of the edge v -> h[v][i], 2 * dimension + (0: +, 1: -).
  std::vector<std::vector<int>> code(static_cast<size_t>(n));
  auto code_of = [&](int v, int u) {
    const auto it = std::lower_bound(h[v].begin(), h[v].end(), u);
    return code[v][static_cast<size_t>(it - h[v].begin())];
  };
  // At rank 0: pair each neighbour with the one it closes no square with.
  code[0].assign(degree, -1);
  int next_dim = 0;
  for (size_t i = 0; i < degree; ++i) {
    if (code[0][i] >= 0) continue;
    int opposite = -1, squares = 0, scratch = 0;
    for (size_t j = 0; j < degree; ++j) {
      if (j == i) continue;
      const int c = common_count(h, h[0][i], h[0][j], 0, scratch);
      if (c == 0) {
        if (opposite >= 0) return {};
        opposite = static_cast<int>(j);
      } else if (c == 1) {
        ++squares;
      } else {
        return {};
      }
    }
    if (opposite < 0 || code[0][static_cast<size_t>(opposite)] >= 0 || squares != static_cast<int>(degree) - 2)
      return {};
    code[0][i] = 2 * next_dim;
    code[0][static_cast<size_t>(opposite)] = 2 * next_dim + 1;
    ++next_dim;
  }
  // Carry the directions across the squares, breadth first.
  std::queue<int> queue;
  queue.push(0);
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop();
    for (size_t i = 0; i < degree; ++i) {
      const int q = h[v][i];
      if (!code[q].empty()) continue;
      code[q].assign(degree, -1);
      std::vector<char> used(degree, 0);
      for (size_t j = 0; j < degree; ++j) {
        const int x = h[q][j];
        int c = 0;
        if (x == v) {
          c = code[v][i] ^ 1;
        } else {
          int y = -1;
          const int count = common_count(h, v, x, q, y);
          if (count == 0) c = code[v][i];         // straight on: v, q, x along one dimension
          else if (count == 1) c = code_of(v, y);  // the square v, q, x, y: q -> x parallel to v -> y
          else return {};
        }
        if (used[static_cast<size_t>(c)]) return {};
        used[static_cast<size_t>(c)] = 1;
        code[q][j] = c;
      }
      queue.push(q);
    }
  }
  for (int v = 0; v < n; ++v)
    if (code[v].empty()) return {};  // not connected
  // Walk each dimension from rank 0 for its side.
  dims.assign(static_cast<size_t>(d), 0);
  std::int64_t product = 1;
  for (int k = 0; k < d; ++k) {
    int at = 0, steps = 0;
    do {
      int next = -1;
      for (size_t j = 0; j < degree; ++j)
        if (code[at][j] == 2 * k) next = h[at][j];
      at = next;
      ++steps;
    } while (at > 0 && steps <= n);  // every rank has every direction once (checked above)
    if (at != 0 || steps < 5) {
      dims.clear();
      return {};
    }
    dims[k] = steps;
    product *= steps;
  }
  if (product != n) {
    dims.clear();
    return {};
  }
  // Coordinates breadth first; every edge must join ranks one step apart
  // along its dimension, and no two ranks may share coordinates.
  std::vector<std::int64_t> index(static_cast<size_t>(n), -1);
  std::vector<std::vector<int>> coord(static_cast<size_t>(n));
  coord[0].assign(static_cast<size_t>(d), 0);
  queue.push(0);
  auto step = [&](const std::vector<int>& from, int c) {
    std::vector<int> to = from;
    const int k = c / 2;
    to[k] = (to[k] + (c % 2 == 0 ? 1 : dims[k] - 1)) % dims[k];
    return to;
  };
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop();
    for (size_t j = 0; j < degree; ++j) {
      const int q = h[v][j];
      const std::vector<int> expect = step(coord[v], code[v][j]);
      if (coord[q].empty()) {
        coord[q] = expect;
        queue.push(q);
      } else if (coord[q] != expect) {
        dims.clear();
        return {};
      }
    }
  }
  std::vector<int> order(static_cast<size_t>(n), -1);
  for (int v = 0; v < n; ++v) {
    std::int64_t at = 0;
    for (int k = d - 1; k >= 0; --k) at = at * dims[k] + coord[v][k];
    if (order[at] >= 0) {
      dims.clear();
      return {};
    }
    order[at] = v;
  }
  return order;
}

CommGraph renumbered(const CommGraph& graph, const std::vector<int>& order) {
  const int n = graph.vertices;
  std::vector<int> new_of(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) new_of[order[i]] = i;
  CommGraph out;
  out.vertices = n;
  out.xadj.assign(1, 0);
  for (int i = 0; i < n; ++i) {
    const int v = order[i];
    std::vector<std::pair<int, double>> row;
    for (auto e = graph.xadj[v]; e < graph.xadj[v + 1]; ++e) row.push_back({new_of[graph.adjncy[e]], graph.weight[e]});
    std::sort(row.begin(), row.end());
    for (const auto& [u, w] : row) {
      out.adjncy.push_back(u);
      out.weight.push_back(w);
    }
    out.xadj.push_back(static_cast<std::int64_t>(out.adjncy.size()));
  }
  return out;
}

}  // namespace rankmap::detail
