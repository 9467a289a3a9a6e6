// Symmetries of a torus that keep the weighted distance between every two
// nodes: per-dimension translation (rings only) and reflection, and
// permutations of dimensions of equal size, wrap and link count. Internal to
// mapper/ (recombine.cpp aligns placements with them, link_relief.cpp looks
// among a placement's images for the least loaded one).
#pragma once

#include <numeric>
#include <vector>

#include "rankmap/allocation.hpp"
#include "rankmap/torus.hpp"

namespace rankmap::detail {

class TorusSymmetries {
 public:
  // At most this many maps are enumerated (the identity first).
  static constexpr int kMaxSymmetries = 4096;
  // Without translations: one representative of each class of symmetries
  // that differ by a translation only (reflections through the origin and
  // exchanges of dimensions). Routing on a torus is the same from every
  // node, so the images of a placement under one class load the links
  // alike, shifted.
  enum Translations { kWithTranslations, kWithoutTranslations };

  TorusSymmetries(const Torus& t, Translations translations) : t_(t), translations_(translations == kWithTranslations) {
    const int n = t.dims();
    std::vector<int> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    do {
      bool ok = true;
      for (int d = 0; d < n && ok; ++d) {
        const int e = perm[static_cast<size_t>(d)];
        ok = t.size(d) == t.size(e) && t.wraps(d) == t.wraps(e) && t.links(d) == t.links(e);
      }
      if (ok) perms_.push_back(perm);
    } while (std::next_permutation(perm.begin(), perm.end()));
  }

  // Calls f(map) for each symmetry (map: node -> image), up to kMaxSymmetries.
  template <class F>
  void for_each(F&& f) const {
    const int n = t_.dims();
    std::vector<int> shift(static_cast<size_t>(n), 0), flip(static_cast<size_t>(n), 0);
    std::vector<int> map(static_cast<size_t>(t_.nodes()));
    std::vector<int> c(static_cast<size_t>(n));
    int count = 0;
    for (const std::vector<int>& perm : perms_) {
      std::fill(shift.begin(), shift.end(), 0);
      std::fill(flip.begin(), flip.end(), 0);
      for (;;) {
        if (count++ == kMaxSymmetries) return;
        for (int a = 0; a < t_.nodes(); ++a) {
          for (int d = 0; d < n; ++d) {
            const int size = t_.size(d);
            int x = t_.coord(a, perm[static_cast<size_t>(d)]);
            if (flip[static_cast<size_t>(d)]) x = t_.wraps(d) ? (size - x) % size : size - 1 - x;
            c[static_cast<size_t>(d)] = (x + shift[static_cast<size_t>(d)]) % size;
          }
          map[static_cast<size_t>(a)] = t_.node_at(c);
        }
        f(map);
        // Next (flip, shift) combination, odometer style.
        int d = 0;
        for (; d < n; ++d) {
          const int size = t_.size(d);
          if (translations_ && t_.wraps(d) && shift[static_cast<size_t>(d)] + 1 < size) {
            ++shift[static_cast<size_t>(d)];
            break;
          }
          shift[static_cast<size_t>(d)] = 0;
          // On a ring of 2 the reflection is a translation; on a chain it is not.
          if ((size > 2 || (size == 2 && !t_.wraps(d))) && !flip[static_cast<size_t>(d)]) {
            flip[static_cast<size_t>(d)] = 1;
            break;
          }
          flip[static_cast<size_t>(d)] = 0;
        }
        if (d == n) break;
      }
    }
  }

 private:
  const Torus& t_;
  bool translations_;
  std::vector<std::vector<int>> perms_;
};

// Whether the symmetry `map` (node -> image) maps the allocation onto
// itself: every allocated node onto one with as many slots (a bijection, so
// the nodes off the allocation stay off it too).
inline bool keeps_allocation(const Allocation& allocation, const std::vector<int>& map) {
  for (int a : allocation.nodes())
    if (allocation.slots(a) != allocation.slots(map[static_cast<size_t>(a)])) return false;
  return true;
}

}  // namespace rankmap::detail
