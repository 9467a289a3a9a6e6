// Uses the installed rankmap libraries the way an outside project would.
#include <cstdio>

#include "rankmap/machine.hpp"

int main() {
  auto machine = rankmap::parse_machine("desmos");
  if (!machine) return 1;
  auto torus = machine->torus();
  if (!torus || torus->diameter() != 5) return 1;
  std::printf("%s\n", rankmap::to_string(*machine).c_str());
  return 0;
}
