// Output safety (common/): never over an input, identity not names.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "rankmap/atomic_file.hpp"

using namespace rankmap;
namespace fs = std::filesystem;

namespace {
// A fresh scratch directory, removed at the end of the test.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "rankmap-output-test-XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~ScratchDir() { fs::remove_all(path); }
  std::string file(const std::string& name, const std::string& content = "x\n") const {
    std::ofstream(path / name) << content;
    return (path / name).string();
  }
};
}  // namespace

TEST_CASE("an output that is an input is refused, however it is named") {
  ScratchDir dir;
  const std::string in = dir.file("in.prof");
  const std::string other = dir.file("other.map");
  CHECK(refuse_to_overwrite_inputs({(dir.path / "new.map").string()}, {in, other}));  // does not exist yet
  CHECK(refuse_to_overwrite_inputs({other}, {in}));                                  // exists, but another file
  CHECK(refuse_to_overwrite_inputs({in}, {}));
  CHECK(refuse_to_overwrite_inputs({in}, {"", "no/such/file"}));

  Status same = refuse_to_overwrite_inputs({in}, {other, in});
  REQUIRE_FALSE(same);
  CHECK(same.error().message == in + ": is an input; refusing to write over it");

  const std::string dotted = (dir.path / "." / "in.prof").string();
  Status dot = refuse_to_overwrite_inputs({dotted}, {in});
  REQUIRE_FALSE(dot);
  CHECK(dot.error().message == dotted + ": is the same file as the input " + in + "; refusing to write over an input");

  fs::create_symlink(in, dir.path / "link.prof");
  CHECK_FALSE(refuse_to_overwrite_inputs({(dir.path / "link.prof").string()}, {in}));
  CHECK_FALSE(refuse_to_overwrite_inputs({in}, {(dir.path / "link.prof").string()}));
  fs::create_hard_link(in, dir.path / "hard.prof");
  CHECK_FALSE(refuse_to_overwrite_inputs({other, (dir.path / "hard.prof").string()}, {in}));
}
