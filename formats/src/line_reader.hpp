// Iterates over the lines of a text buffer, numbering them for error messages.
#pragma once

#include <string>
#include <string_view>

#include "rankmap/result.hpp"

namespace rankmap::detail {

class LineReader {
 public:
  LineReader(std::string_view text, std::string filename) : text_(text), filename_(std::move(filename)) {}

  // Next line without its newline; false at end of text.
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    ++line_no_;
    return true;
  }
  size_t line_no() const { return line_no_; }
  std::string where() const { return filename_ + ":" + std::to_string(line_no_); }
  const std::string& filename() const { return filename_; }

 private:
  std::string_view text_;
  std::string filename_;
  size_t pos_ = 0;
  size_t line_no_ = 0;  // a 4 GiB file can hold more lines than an int counts
};

// The whole file, within the input limits (rankmap/input_file.hpp).
Result<std::string> read_whole_file(const std::string& path);

}  // namespace rankmap::detail
