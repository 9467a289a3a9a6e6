// The lower bound's cut part (docs/mapper.md, "Lower bound", bound 5).
//
// The other parts price every edge that leaves a node at the distance to the
// nearest node, D_0. That is tight for stencils, whose groups can sit next to
// each other, and far off for graphs that expand (random partners, irregular
// sparse codes): there most of a rank's partners cannot be near it, whatever
// the placement, and the best mappings found cost 2-3x that bound.
//
// The network gives cuts whose prices never overcharge a pair of nodes
// (Network::distance_cuts: a torus's halvings along each dimension, whose
// prices sum to the distance). So every placement costs at least the sum over
// the cuts of price x the weight between the ranks on the two sides, and the
// weight between any two sets S and T of ranks is at least
// lambda_2 x |S| |T| / n (lambda_2: the second smallest eigenvalue of the
// graph's Laplacian; the Rayleigh quotient of the indicator of S, centred).
// A side holds at most its nodes' slots, which bounds |S| from both ends.
//
// Where every slot holds a rank with traffic (a full machine), the cuts'
// centred indicator vectors z_p have a Gram matrix that does not depend on
// the placement (ppn x that of the nodes' sides), and the cost is at least
// sum_p price_p z_p' L z_p = trace(L Z P Z'). Both L and Z P Z' leave the
// constant vector out, so by von Neumann's trace inequality this is at least
// sum_i lambda_(i+1) mu_i: the Laplacian's eigenvalues from the second up,
// against the eigenvalues mu_1 >= mu_2 >= ... of P^1/2 Z'Z P^1/2. Halvings
// of different dimensions (and of one ring) cut along different directions,
// which one eigenvector cannot all follow: 8-17% above the per-cut lambda_2
// on random partners and recorded sparse codes.
//
// The eigenvalues come from a dense symmetric eigensolver (Eigen), up to a
// size limit: 0.16 s at 1,024 ranks here. The solver is backward stable (its
// eigenvalues are exact for a matrix within c n eps ||L|| of L), and that
// much is taken off each before it is used, so the bound still holds.
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "detail.hpp"

namespace rankmap::detail {

namespace {

// Backward error of a dense symmetric eigensolve: its eigenvalues are exact
// for a matrix within c n eps ||A||_2 of A (Weyl: each sorted eigenvalue
// moves by at most that). A generous c.
double eigen_margin(Eigen::Index n, double norm_bound) {
  return 64.0 * static_cast<double>(n) * std::numeric_limits<double>::epsilon() * norm_bound;
}

// Cut sides asked at most (cuts x allocated nodes): ~0.1 s.
constexpr double kMaxCutSides = 4e7;

// The eigenvalues (ascending) of the Laplacian of the subgraph on `ranks`
// (edges to other ranks left out), each less the eigensolver's possible
// error and at least 0, so that none is above the true one; empty if the
// solver fails. A dense solve: O(ranks^3).
std::vector<double> laplacian_spectrum(const CommGraph& g, const std::vector<int>& ranks) {
  const auto n = static_cast<Eigen::Index>(ranks.size());
  std::vector<int> index(static_cast<size_t>(g.vertices), -1);
  for (Eigen::Index i = 0; i < n; ++i) index[static_cast<size_t>(ranks[static_cast<size_t>(i)])] = static_cast<int>(i);
  Eigen::MatrixXd laplacian = Eigen::MatrixXd::Zero(n, n);
  double max_degree = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const int v = ranks[static_cast<size_t>(i)];
    for (auto e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      const int j = index[static_cast<size_t>(g.adjncy[e])];
      if (j < 0) continue;  // a partner left out: the Laplacian of the others
      laplacian(i, j) -= g.weight[e];
      laplacian(i, i) += g.weight[e];
    }
    max_degree = std::max(max_degree, laplacian(i, i));
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(laplacian, Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success) return {};
  // ||L||_2 <= 2 x the largest degree (Gershgorin).
  const double margin = eigen_margin(n, 2 * max_degree);
  std::vector<double> values(static_cast<size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) values[static_cast<size_t>(i)] = std::max(0.0, solver.eigenvalues()(i) - margin);
  return values;
}

}  // namespace

LowerBound cut_lower_bound(const CommGraph& g, const Network& net, int ppn, const std::vector<int>& nodes,
                           int max_ranks) {
  LowerBound lb;
  if (ppn < 1 || nodes.empty()) return lb;
  const int cuts = net.distance_cuts();
  // Each cut's side of every allocated node is asked: a job on a few nodes
  // of a huge machine (a chain of a million nodes has as many cuts) skips.
  if (cuts == 0 || static_cast<double>(cuts) * static_cast<double>(nodes.size()) > kMaxCutSides) return lb;
  // Ranks without traffic can sit anywhere: the bound is on the others.
  std::vector<int> ranks;
  for (int v = 0; v < g.vertices; ++v)
    if (g.xadj[v + 1] > g.xadj[v]) ranks.push_back(v);
  const auto n = static_cast<std::int64_t>(ranks.size());
  if (n < 2 || n > max_ranks) return lb;
  const std::vector<double> lambda = laplacian_spectrum(g, ranks);
  if (lambda.size() < 2 || lambda[1] <= 0) return lb;  // not connected: no bound here

  if (n == static_cast<std::int64_t>(ppn) * static_cast<std::int64_t>(nodes.size())) {
    // Every slot holds one of them: the trace bound. Z: the nodes' centred
    // sides, one column per cut, scaled by sqrt(ppn x price); its Gram
    // matrix is that of the ranks' vectors.
    const auto k = static_cast<Eigen::Index>(cuts);
    Eigen::MatrixXd sides(static_cast<Eigen::Index>(nodes.size()), k);  // centred
    for (Eigen::Index c = 0; c < k; ++c) {
      for (size_t i = 0; i < nodes.size(); ++i)
        sides(static_cast<Eigen::Index>(i), c) = net.distance_cut_side(static_cast<int>(c), nodes[i]);
      sides.col(c).array() -= sides.col(c).mean();
    }
    for (const bool weighted : {false, true}) {
      Eigen::MatrixXd z = sides;
      for (Eigen::Index c = 0; c < k; ++c) {
        const CutPrice price = net.distance_cut_price(static_cast<int>(c));
        z.col(c) *= std::sqrt(ppn * (weighted ? price.weighted : price.hops));
      }
      const Eigen::MatrixXd gram = z.transpose() * z;
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(gram, Eigen::EigenvaluesOnly);
      if (solver.info() != Eigen::Success) continue;
      // ||Gram||_2 <= its trace (positive semidefinite).
      const double margin = eigen_margin(k, gram.trace());
      double bound = 0;
      for (Eigen::Index i = 0; i < k && i + 1 < static_cast<Eigen::Index>(lambda.size()); ++i) {
        const double mu = std::max(0.0, solver.eigenvalues()(k - 1 - i) - margin);  // descending
        bound += mu * lambda[static_cast<size_t>(i + 1)];
      }
      (weighted ? lb.weighted : lb.hop_bytes) = bound;
    }
    return lb;
  }
  // Otherwise each cut alone, with lambda_2: |S| ranks on the first side and
  // n - |S| on the second, each within its slots; |S| (n - |S|) is concave,
  // so least at an end of that range.
  for (int cut = 0; cut < cuts; ++cut) {
    std::int64_t first = 0, second = 0;
    for (int node : nodes) (net.distance_cut_side(cut, node) == 0 ? first : second) += ppn;
    const std::int64_t lo = std::max<std::int64_t>(0, n - second), hi = std::min(n, first);
    if (lo > hi) continue;  // they cannot be placed at all: nothing to bound
    const double least = static_cast<double>(std::min(lo * (n - lo), hi * (n - hi)));
    const double crossing = lambda[1] * least / static_cast<double>(n);
    const CutPrice price = net.distance_cut_price(cut);
    lb.hop_bytes += price.hops * crossing;
    lb.weighted += price.weighted * crossing;
  }
  return lb;
}

}  // namespace rankmap::detail
