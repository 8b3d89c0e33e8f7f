// The fields of an ncu CSV export, for the import (ncu_csv.cpp): its records read from a
// stream in one pass, its numbers and its units checked against each metric's dimension.
// Internal to atomq_ncu_import.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "atomq/analyzer/ncu_csv.hpp"

namespace atomq::analyzer::ncu_detail {

// Throws NcuCsvError "SOURCE:LINE: WHAT".
[[noreturn]] void fail(const std::string& source, size_t line, const std::string& what);
// "4 MiB", or "1000 bytes" below a whole MiB.
std::string mib(size_t bytes);

// The export's records, read from a stream through a buffer, each byte looked at once. A
// quoted field may hold line breaks (RFC 4180); a record is at most `max_bytes` long.
class CsvRecords {
 public:
  CsvRecords(std::istream& in, const std::string& source, size_t max_bytes)
      : in_(in), source_(source), max_bytes_(max_bytes), buffer_((size_t{1} << 16) + 1) {
    // A UTF-8 byte order mark (spreadsheet tools write one) is not part of the first field.
    if (peek() == 0xEF && fill(3) && buffer_[pos_ + 1] == '\xBB' && buffer_[pos_ + 2] == '\xBF') pos_ += 3;
  }

  // The next line, without its line break; false at the end of the input.
  bool next_line(std::string& line) {
    line.clear();
    if (peek() < 0) return false;
    first_line_ = ++line_;
    while (pos_ < end_ || fill(1)) {
      const char* p = buffer_.data() + pos_;
      const void* nl = std::memchr(p, '\n', end_ - pos_);
      const size_t run = nl ? static_cast<size_t>(static_cast<const char*>(nl) - p) : end_ - pos_;
      if (line.size() + run > max_bytes_) fail(source_, line_, "line longer than " + mib(max_bytes_) + " (not an ncu export?)");
      line.append(p, run);
      pos_ += run + (nl ? 1 : 0);
      if (nl) break;
    }
    return true;
  }

  bool next_record(std::vector<std::string>& fields);
  size_t first_line() const { return first_line_; }  // of the record or line last read

 private:
  int get() {
    if (pos_ == end_ && !fill(1)) return -1;
    return static_cast<unsigned char>(buffer_[pos_++]);
  }
  int peek() { return pos_ == end_ && !fill(1) ? -1 : static_cast<unsigned char>(buffer_[pos_]); }
  // At least `n` bytes buffered (n <= 3), unless the input ends first.
  bool fill(size_t n) {
    if (end_ - pos_ >= n) return true;
    std::copy(buffer_.begin() + static_cast<long>(pos_), buffer_.begin() + static_cast<long>(end_), buffer_.begin());
    end_ -= pos_, pos_ = 0;
    while (end_ < n && in_) {
      in_.read(buffer_.data() + end_, static_cast<std::streamsize>(buffer_.size() - 1 - end_));
      end_ += static_cast<size_t>(in_.gcount());
      buffer_[end_] = '\0';  // a terminator for strcspn (a NUL in the text is a byte like any other)
    }
    if (in_.bad()) throw NcuCsvError(source_ + ": read failed after line " + std::to_string(line_));
    return end_ - pos_ >= n;
  }

  std::istream& in_;
  const std::string& source_;
  size_t max_bytes_;
  std::vector<char> buffer_;  // [pos_, end_) unread, then a NUL
  size_t pos_ = 0, end_ = 0;
  size_t line_ = 0, first_line_ = 0;
};

// What a metric measures, from ncu's base units; each has its units and their scale to the
// unit the model reads (nanoseconds, cycles, bytes, percent, counts).
enum class Dimension { kTime, kCycles, kBytes, kPercent, kCount, kLaunchStatistic };

const char* dimension_name(Dimension d);
// The dimension of a metric the model reads; nullopt for the others (checked, not kept).
std::optional<Dimension> read_metric_dimension(const std::string& name);
// The scale of `unit` for a metric of dimension `d` to the unit the model reads, or nullopt
// when the unit is another dimension's ("Kbyte" on a time, "msecond" on a count).
std::optional<double> unit_scale(const std::string& unit, Dimension d);
// A unit ncu writes, of any dimension or a rate (for the metrics atomq does not read).
bool known_unit(const std::string& unit);
// "(264, 1, 1)" -> {264, 1, 1}; decimal digits only, nothing after the ")".
bool parse_dim3(const std::string& text, long long out[3]);
// A metric's value: decimal digits ("1,234.5", "1e3"), finite, not underflowing; else fail().
double parse_value(const std::string& text, const std::string& name, const std::string& source, size_t line);

}  // namespace atomq::analyzer::ncu_detail
