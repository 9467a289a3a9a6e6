// Starts that assume what most MPI codes do: ranks numbered row-major along
// a 2D or 3D process grid (MPI_Cart_create, NAS's row/column grids, stencil
// decompositions). Such a numbering is invisible to a min-cut partitioner,
// which returns whatever group shapes its coarsening happened to find, and to
// the seeded starts, whose shapes vary from seed to seed; tiling the grid
// with equal blocks of ppn ranks gives the regular groups (2x2 squares of a
// triangular lattice, 1x1x4 columns of a 3D stencil) that lay out on a torus
// without long edges. Deterministic: no seed, so the result of the default
// does not depend on the luck of a seed wherever a grid is what wins.
//
//   cartesian_groupings  every grid shape (2 or 3 dimensions, each >= 2) and
//                        every block of ppn ranks that tiles it; the
//                        groupings of lowest cut (inter-group weight)
//   embed_block_grid     the grid of blocks laid onto a box of allocated
//                        nodes (the whole torus, or a sub-box where the job
//                        needs fewer nodes or the allocation is one): each
//                        block dimension onto box dimensions whose sizes
//                        multiply to its size (a boustrophedon walk when
//                        several), so that grid neighbours land on torus
//                        neighbours
#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>

#include "detail.hpp"

namespace rankmap::detail {

namespace {

// Allocation lookups the search for an allocated box may make (offsets x
// box nodes): at most ~10 ms, on partial allocations only.
constexpr std::int64_t kMaxBoxChecks = 4'000'000;
// Scaled layouts of a grid held to the slots (scaled_grid_start), cheapest
// first by their cost before.
constexpr size_t kScaledRepaired = 3;
// Foldings of one block grid kept within the tie of the cheapest (each holds
// a node per block): their busiest links are compared by the caller.
constexpr size_t kMaxTiedFoldings = 32;

// Every ordered factorisation of n into `parts` factors >= 2.
void factorisations(int n, int parts, std::vector<int>& prefix, std::vector<std::vector<int>>& out) {
  if (parts == 1) {
    if (n >= 2) {
      prefix.push_back(n);
      out.push_back(prefix);
      prefix.pop_back();
    }
    return;
  }
  for (int f = 2; f * 2 <= n; ++f) {
    if (n % f != 0) continue;
    prefix.push_back(f);
    factorisations(n / f, parts - 1, prefix, out);
    prefix.pop_back();
  }
}

// Every block (b_i dividing dims_i) with prod b_i == volume.
void blocks_of(const std::vector<int>& dims, int volume, std::vector<int>& prefix, std::vector<std::vector<int>>& out) {
  const size_t i = prefix.size();
  if (i == dims.size()) {
    if (volume == 1) out.push_back(prefix);
    return;
  }
  for (int b = 1; b <= dims[i] && b <= volume; ++b) {
    if (dims[i] % b != 0 || volume % b != 0) continue;
    prefix.push_back(b);
    blocks_of(dims, volume / b, prefix, out);
    prefix.pop_back();
  }
}

std::string shape_name(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
  return s;
}

// Coordinates of `index` along a boustrophedon walk of a box of `sizes` (the
// first size slowest): consecutive indices are one step apart.
void walk_coords(long long index, const std::vector<int>& sizes, std::vector<int>& coords) {
  long long volume = 1;
  for (int s : sizes) volume *= s;
  coords.assign(sizes.size(), 0);
  for (size_t j = 0; j < sizes.size(); ++j) {
    volume /= sizes[j];
    const int digit = static_cast<int>(index / volume);
    long long rest = index % volume;
    if (digit % 2 == 1) rest = volume - 1 - rest;  // odd rows run backwards
    coords[j] = digit;
    index = rest;
  }
}

// Every 2D and 3D shape of n ranks (each side >= 2) with its affinity: the
// weight between grid neighbours (rank distance one stride of a dimension,
// or its wrap-around) if the ranks were numbered row-major along it, judged
// from a histogram of rank distances; and that weight per dimension.
struct GridShape {
  std::vector<int> dims;
  double affinity = 0;
  std::vector<double> along;  // per dimension
};
std::vector<GridShape> grid_shapes(const CommGraph& graph) {
  const int n = graph.vertices;
  std::vector<std::vector<int>> shapes;
  std::vector<int> prefix;
  for (int parts : {2, 3}) factorisations(n, parts, prefix, shapes);
  std::vector<std::pair<int, double>> by_distance;
  for (int u = 0; u < n; ++u)
    for (auto e = graph.xadj[u]; e < graph.xadj[u + 1]; ++e)
      if (graph.adjncy[e] > u) by_distance.push_back({graph.adjncy[e] - u, graph.weight[e]});
  std::sort(by_distance.begin(), by_distance.end());
  auto weight_at = [&](long long distance) {
    auto it = std::lower_bound(by_distance.begin(), by_distance.end(), std::pair<int, double>{static_cast<int>(distance), -1.0});
    double w = 0;
    for (; it != by_distance.end() && it->first == distance; ++it) w += it->second;
    return w;
  };
  std::vector<GridShape> out;
  for (std::vector<int>& shape : shapes) {
    GridShape g;
    g.along.assign(shape.size(), 0.0);
    long long stride = 1;
    for (size_t j = shape.size(); j-- > 0;) {
      g.along[j] = weight_at(stride);
      if (shape[j] > 2) g.along[j] += weight_at(stride * (shape[j] - 1));
      g.affinity += g.along[j];
      stride *= shape[j];
    }
    g.dims = std::move(shape);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace

std::vector<GridGrouping> cartesian_groupings(const CommGraph& graph, int ppn, int limit, std::int64_t work_limit,
                                              double min_affinity) {
  const int n = graph.vertices;
  std::vector<GridGrouping> found;
  if (ppn < 1 || n < 4 || n % ppn != 0 || graph.edges() == 0) return found;
  // Shapes in order of how much of the weight runs between grid neighbours:
  // with many shapes (2^15 ranks have 105) the work limit then cuts the
  // implausible ones, not the true grid.
  std::vector<std::vector<int>> shapes;
  std::vector<double> affinity;
  for (GridShape& shape : grid_shapes(graph)) {
    shapes.push_back(std::move(shape.dims));
    affinity.push_back(shape.affinity);
  }
  std::vector<int> prefix;
  if (shapes.empty() || *std::max_element(affinity.begin(), affinity.end()) < min_affinity * graph.total_weight())
    return found;
  std::vector<size_t> order(shapes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return affinity[a] > affinity[b]; });
  const std::int64_t per_grouping = static_cast<std::int64_t>(n) + static_cast<std::int64_t>(graph.adjncy.size());
  std::int64_t work = 0;
  std::vector<int> coord(static_cast<size_t>(n) * 3), part(static_cast<size_t>(n));
  for (size_t shape : order) {
    const std::vector<int>& dims = shapes[shape];
    const size_t d = dims.size();
    // Row-major: the last dimension varies fastest.
    for (int r = 0; r < n; ++r) {
      int rest = r;
      for (size_t i = d; i-- > 0;) {
        coord[static_cast<size_t>(r) * 3 + i] = rest % dims[i];
        rest /= dims[i];
      }
    }
    std::vector<std::vector<int>> blocks;
    blocks_of(dims, ppn, prefix, blocks);
    for (const std::vector<int>& block : blocks) {
      if (work + per_grouping > work_limit) return found;
      work += per_grouping;
      std::vector<int> grid(d);
      for (size_t i = 0; i < d; ++i) grid[i] = dims[i] / block[i];
      for (int r = 0; r < n; ++r) {
        int id = 0;
        for (size_t i = 0; i < d; ++i) id = id * grid[i] + coord[static_cast<size_t>(r) * 3 + i] / block[i];
        part[r] = id;
      }
      double cut = 0;
      for (int u = 0; u < n; ++u)
        for (auto e = graph.xadj[u]; e < graph.xadj[u + 1]; ++e)
          if (part[graph.adjncy[e]] != part[u]) cut += graph.weight[e];
      cut /= 2;
      // Different shapes can tile alike (2x512 and 16x8x8 with blocks of 2
      // along the last dimension): one grouping, with every block grid it
      // has, since which of them folds onto the torus depends on the torus.
      auto same = std::find_if(found.begin(), found.end(), [&](const GridGrouping& f) { return f.cut == cut && f.part == part; });
      if (same != found.end()) {
        same->grids.push_back(grid);
        continue;
      }
      found.push_back(GridGrouping{shape_name(dims) + "/" + shape_name(block), part, {grid}, cut});
      std::stable_sort(found.begin(), found.end(), [](const GridGrouping& a, const GridGrouping& b) { return a.cut < b.cut; });
      if (static_cast<int>(found.size()) > limit) found.pop_back();
    }
  }
  return found;
}

std::vector<BlockGridFolding> tied_block_grid_foldings(const CommGraph& blocks, const std::vector<int>& grid,
                                                       const Torus& torus, const std::vector<int>& nodes,
                                                       double tie_share) {
  long long volume = 1;
  for (int s : grid) volume *= s;
  if (volume != blocks.vertices || volume > static_cast<long long>(nodes.size())) return {};
  const int nd = torus.dims();
  std::vector<char> allocated(static_cast<size_t>(torus.nodes()), 0);
  for (int a : nodes) allocated[static_cast<size_t>(a)] = 1;
  const bool whole = static_cast<int>(nodes.size()) == torus.nodes();
  std::vector<int> node_of(static_cast<size_t>(volume)), bcoords(grid.size()), sub, tc(static_cast<size_t>(nd));
  // The foldings within the tie of the cheapest so far, in the order found.
  using Folding = BlockGridFolding;
  std::vector<Folding> tied;
  double best_cost = std::numeric_limits<double>::infinity();
  std::int64_t checks = 0;

  // The nodes of a box (sizes `box` from `offset`), or false when one of
  // them is not allocated. Box coordinates run along chains and rings alike.
  auto box_allocated = [&](const std::vector<int>& box, const std::vector<int>& offset) {
    long long count = 1;
    for (int b : box) count *= b;
    for (long long i = 0; i < count; ++i) {
      long long rest = i;
      for (int t = 0; t < nd; ++t) {
        tc[static_cast<size_t>(t)] = (offset[static_cast<size_t>(t)] + static_cast<int>(rest % box[static_cast<size_t>(t)])) % torus.size(t);
        rest /= box[static_cast<size_t>(t)];
      }
      ++checks;
      if (!allocated[static_cast<size_t>(torus.node_at(tc))]) return false;
    }
    return true;
  };
  // The block grid laid onto one box: every box dimension of size > 1
  // assigned to one block dimension, valid when each block dimension's box
  // sizes multiply to its size (walked as a boustrophedon when several).
  auto fold_into = [&](const std::vector<int>& box, const std::vector<int>& offset) {
    std::vector<int> tdims;
    for (int t = 0; t < nd; ++t)
      if (box[static_cast<size_t>(t)] > 1) tdims.push_back(t);
    std::vector<int> owner(tdims.size(), 0);
    std::function<void(size_t)> assign = [&](size_t j) {
      if (j < tdims.size()) {
        for (size_t g = 0; g < grid.size(); ++g) {
          owner[j] = static_cast<int>(g);
          assign(j + 1);
        }
        return;
      }
      std::vector<std::vector<int>> parts(grid.size());
      for (size_t k = 0; k < tdims.size(); ++k) parts[static_cast<size_t>(owner[k])].push_back(tdims[k]);
      for (size_t g = 0; g < grid.size(); ++g) {
        long long product = 1;
        for (int t : parts[g]) product *= box[static_cast<size_t>(t)];
        if (product != grid[g]) return;
      }
      std::vector<std::vector<int>> sizes(grid.size());
      for (size_t g = 0; g < grid.size(); ++g)
        for (int t : parts[g]) sizes[g].push_back(box[static_cast<size_t>(t)]);
      for (long long b = 0; b < volume; ++b) {
        long long rest = b;
        for (size_t g = grid.size(); g-- > 0;) {
          bcoords[g] = static_cast<int>(rest % grid[g]);
          rest /= grid[g];
        }
        tc = offset;
        for (size_t g = 0; g < grid.size(); ++g) {
          walk_coords(bcoords[g], sizes[g], sub);
          for (size_t k = 0; k < parts[g].size(); ++k) {
            const int t = parts[g][k];
            tc[static_cast<size_t>(t)] = (offset[static_cast<size_t>(t)] + sub[k]) % torus.size(t);
          }
        }
        node_of[static_cast<size_t>(b)] = torus.node_at(tc);
      }
      const double cost = weighted_cost(blocks, torus, node_of);
      if (cost > best_cost * (1 + tie_share)) return;
      if (cost < best_cost) {
        best_cost = cost;
        tied.erase(std::remove_if(tied.begin(), tied.end(),
                                  [&](const Folding& f) { return f.cost > best_cost * (1 + tie_share); }),
                   tied.end());
        // The cheapest is always kept: it takes the dearest one's place.
        if (tied.size() == kMaxTiedFoldings)
          tied.erase(std::max_element(tied.begin(), tied.end(),
                                      [](const Folding& a, const Folding& b) { return a.cost < b.cost; }));
      }
      if (tied.size() < kMaxTiedFoldings) tied.push_back(Folding{cost, node_of});
    };
    // At most grid.size()^dims assignments (3^4 = 81 on a 4D torus).
    assign(0);
  };
  // Every box of `volume` nodes (sizes multiplying to it, each within its
  // torus dimension), at the first offset where all its nodes are
  // allocated. On the whole torus any offset will do: distances inside a box
  // do not depend on where it lies.
  std::vector<int> box(static_cast<size_t>(nd), 1), offset(static_cast<size_t>(nd), 0);
  std::function<void(int, long long)> sizes_from = [&](int t, long long rest) {
    if (t == nd) {
      if (rest != 1) return;
      if (whole) {
        std::fill(offset.begin(), offset.end(), 0);
        fold_into(box, offset);
        return;
      }
      // Offsets odometer style; a dimension the box spans has only offset 0,
      // a chain only those that keep the box inside it.
      std::fill(offset.begin(), offset.end(), 0);
      for (;;) {
        if (checks > kMaxBoxChecks) return;
        if (box_allocated(box, offset)) {
          fold_into(box, offset);
          return;
        }
        int d = 0;
        for (; d < nd; ++d) {
          const int size = torus.size(d), b = box[static_cast<size_t>(d)];
          const int last = b == size ? 0 : torus.wraps(d) ? size - 1 : size - b;
          if (offset[static_cast<size_t>(d)] < last) {
            ++offset[static_cast<size_t>(d)];
            break;
          }
          offset[static_cast<size_t>(d)] = 0;
        }
        if (d == nd) return;
      }
    }
    for (int b = 1; b <= torus.size(t); ++b)
      if (rest % b == 0) {
        box[static_cast<size_t>(t)] = b;
        sizes_from(t + 1, rest / b);
      }
    box[static_cast<size_t>(t)] = 1;
  };
  sizes_from(0, volume);
  // Cheapest first; among equal costs, the first found.
  std::stable_sort(tied.begin(), tied.end(), [](const Folding& a, const Folding& b) { return a.cost < b.cost; });
  return tied;
}

std::vector<int> embed_block_grid(const CommGraph& blocks, const std::vector<int>& grid, const Torus& torus,
                                  const std::vector<int>& nodes) {
  std::vector<BlockGridFolding> foldings = tied_block_grid_foldings(blocks, grid, torus, nodes, 0);
  return foldings.empty() ? std::vector<int>{} : std::move(foldings.front().node_of);
}

std::vector<int> lightest_block_grid_folding(const CommGraph& blocks, const std::vector<std::vector<int>>& grids,
                                             const std::vector<int>& part, const Traffic* traffic, const Network& net,
                                             const Torus& torus, const std::vector<int>& nodes, double tie_share,
                                             double min_load_gain) {
  std::vector<BlockGridFolding> tied;  // of every grid, in the order found
  double cheapest = std::numeric_limits<double>::infinity();
  for (const std::vector<int>& grid : grids)
    for (BlockGridFolding& fold : tied_block_grid_foldings(blocks, grid, torus, nodes, tie_share)) {
      cheapest = std::min(cheapest, fold.cost);
      tied.push_back(std::move(fold));
    }
  // The busiest link of each; the cheapest's (the first found among
  // equals) is what the lightest must beat.
  std::vector<double> load(tied.size(), 0);
  size_t first = tied.size();
  double lightest = std::numeric_limits<double>::infinity();
  std::vector<int> node_of(part.size());
  for (size_t i = 0; i < tied.size(); ++i) {
    if (tied[i].cost > cheapest * (1 + tie_share)) continue;
    if (first == tied.size() || tied[i].cost < tied[first].cost) first = i;
    if (traffic && tied.size() > 1) {
      for (size_t r = 0; r < part.size(); ++r) node_of[r] = tied[i].node_of[static_cast<size_t>(part[r])];
      load[i] = network_score(*traffic, net, node_of).max_link_relative;
    }
    lightest = std::min(lightest, load[i]);
  }
  if (first == tied.size()) return {};
  size_t kept = first;
  if (lightest <= load[first] * (1 - min_load_gain))
    // Loads within the tie of the lightest tie too: of those, the cheapest.
    for (size_t i = 0; i < tied.size(); ++i)
      if (tied[i].cost <= cheapest * (1 + tie_share) && load[i] <= lightest * (1 + tie_share) &&
          (load[kept] > lightest * (1 + tie_share) || tied[i].cost < tied[kept].cost))
        kept = i;
  return std::move(tied[kept].node_of);
}

ScaledGrid scaled_grid_start(const CommGraph& graph, const Torus& torus, const Allocation& allocation,
                             double min_affinity) {
  const int n = graph.vertices;
  ScaledGrid out;
  if (n < 4 || graph.edges() == 0 || static_cast<int>(allocation.nodes().size()) != torus.nodes() ||
      allocation.total_slots() < n)
    return out;
  // The likeliest grid: the shape with the most weight between neighbours,
  // if that is most of the traffic (a grid code, not random partners).
  // Shapes within 1% of the total weight of it tie (a few small messages
  // at other rank distances, e.g. of collectives, must not make a 8x5x5
  // out of a 8x25 grid): the first of them, fewer dimensions first. Every
  // dimension must carry 1% of the weight: a ring numbered in order has all
  // of it at distance 1, as every shape's last dimension would, and is no
  // 3x7 grid.
  const double total = graph.total_weight();
  const std::vector<GridShape> shapes = grid_shapes(graph);
  double most = 0;
  for (const GridShape& shape : shapes) most = std::max(most, shape.affinity);
  std::vector<int> dims;
  double best_affinity = 0;
  for (const GridShape& shape : shapes)
    if (shape.affinity >= most - 0.01 * total &&
        std::all_of(shape.along.begin(), shape.along.end(), [&](double w) { return w >= 0.01 * total; })) {
      dims = shape.dims;
      best_affinity = shape.affinity;
      break;
    }
  if (dims.empty() || best_affinity < min_affinity * total) return out;
  const size_t k = dims.size();
  const int nd = torus.dims();
  std::vector<int> tdims;
  for (int t = 0; t < nd; ++t)
    if (torus.size(t) > 1) tdims.push_back(t);
  if (tdims.size() < k) return out;
  // Row-major coordinates: the last dimension varies fastest.
  std::vector<int> coord(static_cast<size_t>(n) * k);
  for (int r = 0; r < n; ++r) {
    int rest = r;
    for (size_t i = k; i-- > 0;) {
      coord[static_cast<size_t>(r) * k + i] = rest % dims[i];
      rest /= dims[i];
    }
  }
  std::vector<int> owner(tdims.size(), 0), node_of(static_cast<size_t>(n)), sub, tc(static_cast<size_t>(nd));
  std::vector<std::pair<double, std::vector<int>>> laid;  // cost before the slots are enforced, layout
  // Every torus dimension owned by one grid dimension, each grid dimension
  // owning at least one (at most 3^4 = 81 assignments).
  std::function<void(size_t)> assign = [&](size_t j) {
    if (j < tdims.size()) {
      for (size_t g = 0; g < k; ++g) {
        owner[j] = static_cast<int>(g);
        assign(j + 1);
      }
      return;
    }
    std::vector<std::vector<int>> parts(k);
    for (size_t m = 0; m < tdims.size(); ++m) parts[static_cast<size_t>(owner[m])].push_back(tdims[m]);
    std::vector<std::vector<int>> sizes(k);
    std::vector<long long> span(k, 1);
    for (size_t g = 0; g < k; ++g) {
      if (parts[g].empty()) return;
      for (int t : parts[g]) {
        sizes[g].push_back(torus.size(t));
        span[g] *= torus.size(t);
      }
    }
    // A grid coordinate x of a side D lands at (x + 1/2) D' / D along the
    // dimension's walk of length D' (a boustrophedon over its torus
    // dimensions: consecutive steps are neighbours).
    for (int r = 0; r < n; ++r) {
      std::fill(tc.begin(), tc.end(), 0);
      for (size_t g = 0; g < k; ++g) {
        const long long x = coord[static_cast<size_t>(r) * k + g];
        const long long v = std::min(span[g] - 1, ((2 * x + 1) * span[g]) / (2LL * dims[g]));
        walk_coords(v, sizes[g], sub);
        for (size_t m = 0; m < parts[g].size(); ++m) tc[static_cast<size_t>(parts[g][m])] = sub[m];
      }
      node_of[static_cast<size_t>(r)] = torus.node_at(tc);
    }
    laid.push_back({weighted_cost(graph, torus, node_of), node_of});
  };
  assign(0);
  // Held to the slots, the kScaledRepaired cheapest layouts (the repair
  // scans the nodes for each rank it moves: 0.3 s for all 27 layouts of
  // 8,000 ranks on 16x16x8 nodes).
  std::stable_sort(laid.begin(), laid.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (laid.size() > kScaledRepaired) laid.resize(kScaledRepaired);
  double best_cost = 0;
  for (auto& [unheld, layout] : laid) {
    enforce_node_capacity(graph, torus, allocation, layout);
    const double cost = weighted_cost(graph, torus, layout);
    if (out.node_of.empty() || cost < best_cost) {
      out.node_of = layout;
      best_cost = cost;
    }
  }
  out.name = shape_name(dims);
  return out;
}

}  // namespace rankmap::detail
