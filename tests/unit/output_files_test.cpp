// File safety (common/): outputs never over an input, all or nothing; inputs
// read within bounds.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <vector>
#include <filesystem>
#include <fstream>
#include <string>

#include "rankmap/atomic_file.hpp"
#include "rankmap/input_file.hpp"
#include "rankmap/scratch_dir.hpp"

using namespace rankmap;
namespace fs = std::filesystem;

namespace {
// A fresh scratch directory, removed at the end of the test.
struct TestDir {
  fs::path path;
  TestDir() {
    std::string pattern = (fs::temp_directory_path() / "rankmap-output-test-XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~TestDir() { fs::remove_all(path); }
  std::string file(const std::string& name, const std::string& content = "x\n") const {
    std::ofstream(path / name) << content;
    return (path / name).string();
  }
};
}  // namespace

TEST_CASE("an output that is an input is refused, however it is named") {
  TestDir dir;
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

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}
}  // namespace

TEST_CASE("a set of output files is written all or nothing") {
  TestDir dir;
  const auto at = [&](const char* name) { return (dir.path / name).string(); };
  REQUIRE(write_files_atomically({{at("a"), "new a\n"}, {at("b"), "new b\n"}}));
  CHECK(slurp(at("a")) == "new a\n");
  CHECK(slurp(at("b")) == "new b\n");
  CHECK(names_in(dir.path) == std::vector<std::string>{"a", "b"});

  // c did not exist, a and b did; d cannot be written (a directory is in the way).
  fs::create_directory(dir.path / "d");
  Status failed = write_files_atomically({{at("a"), "newer a\n"}, {at("c"), "c\n"}, {at("b"), "newer b\n"}, {at("d"), "d\n"}});
  REQUIRE_FALSE(failed);
  CHECK(failed.error().message == at("d") + ": is a directory");
  CHECK(slurp(at("a")) == "new a\n");
  CHECK(slurp(at("b")) == "new b\n");
  CHECK(names_in(dir.path) == std::vector<std::string>{"a", "b", "d"});  // no c, no temporaries, no old versions

  // A temporary that cannot be created: nothing changes either.
  Status no_dir = write_files_atomically({{at("a"), "x\n"}, {at("missing/e"), "e\n"}});
  REQUIRE_FALSE(no_dir);
  CHECK(no_dir.error().message == at("missing/e") + ": cannot create temporary file: No such file or directory");
  CHECK(slurp(at("a")) == "new a\n");
  CHECK(names_in(dir.path) == std::vector<std::string>{"a", "b", "d"});
}

TEST_CASE("input files are read whole, within bounds") {
  TestDir dir;
  const std::string small = dir.file("small.prof", "0123456789");
  CHECK(read_input_file(small).value() == "0123456789");
  CHECK(read_input_file(small, 10).value() == "0123456789");
  auto too_big = read_input_file(small, 9);
  REQUIRE_FALSE(too_big);
  CHECK(too_big.error().message == small + ": larger than the limit of 9 bytes for an input file");
  auto directory = read_input_file(dir.path.string());
  REQUIRE_FALSE(directory);
  CHECK(directory.error().message == dir.path.string() + ": is a directory");
  auto device = read_input_file("/dev/zero");
  REQUIRE_FALSE(device);
  CHECK(device.error().message == "/dev/zero: is a device, not a file");
  auto missing = read_input_file((dir.path / "missing").string());
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().message, Catch::EndsWith("missing: cannot open file: No such file or directory"));
}

TEST_CASE("a scratch directory lives under $TMPDIR as long as its owner") {
  TestDir root;  // the test's own $TMPDIR
  const char* saved = std::getenv("TMPDIR");
  const std::string before = saved ? saved : "";
  setenv("TMPDIR", root.path.c_str(), 1);
  CHECK(temp_root() == root.path.string());
  std::string where;
  {
    auto made = rankmap::ScratchDir::make("rankmap-scratch-test");
    REQUIRE(made);
    where = made->path();
    CHECK(fs::path(where).parent_path() == root.path);
    CHECK(fs::path(where).filename().string().rfind("rankmap-scratch-test-", 0) == 0);
    std::ofstream(where + "/inside.txt") << "x\n";
    rankmap::ScratchDir moved = std::move(*made);  // ownership moves; the moved-from one removes nothing
    CHECK(made->path().empty());
    CHECK(moved.path() == where);
    CHECK(fs::exists(where + "/inside.txt"));
  }
  CHECK_FALSE(fs::exists(where));  // removed with its contents
  setenv("TMPDIR", (root.path / "missing").c_str(), 1);
  auto refused = rankmap::ScratchDir::make("rankmap-scratch-test");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("cannot create a temporary directory from " + (root.path / "missing").string()) == 0);
  setenv("TMPDIR", "", 1);
  CHECK(temp_root() == "/tmp");
  if (saved) setenv("TMPDIR", before.c_str(), 1);
  else unsetenv("TMPDIR");
}
