// The GPU harness's results table (bilinear_harness.cu): one row per kernel,
// dtype and class of shapes, printed as text and written as Markdown, and the
// timing of a launch with CUDA events.
#ifndef TOOLS_GPU_HARNESS_HARNESS_REPORT_H_
#define TOOLS_GPU_HARNESS_HARNESS_REPORT_H_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "tools/gpu_harness/harness_buffers.h"

namespace tensorflow_ops {
namespace bilinear {
namespace harness {

struct TableRow {
  std::string kernel;  // forward or gradient
  std::string dtype;   // "half->float" for the forward, "half" for the gradient
  std::string shapes;  // the class of shapes, or one benchmark shape
  int64_t cases = 0;
  int64_t elements = 0;  // results compared
  int64_t mismatches = 0;
  int64_t guard_hits = 0;
  int printed = 0;     // messages about its mismatches and guard hits
  bool timed = false;  // a benchmark shape: the GB/s below are set
  double kernel_gbps = 0;
  double copy_gbps = 0;
};

class Table {
 public:
  // The row of (kernel, dtype, shapes), added at the end if new. Rows live in
  // a deque, so the reference stays valid as rows are added.
  TableRow& Row(const std::string& kernel, const std::string& dtype,
                const std::string& shapes) {
    for (TableRow& row : rows_) {
      if (row.kernel == kernel && row.dtype == dtype && row.shapes == shapes) return row;
    }
    rows_.push_back(TableRow{kernel, dtype, shapes});
    return rows_.back();
  }

  // A line under the table: a case that was skipped and why.
  void Note(const std::string& note) {
    std::printf("note: %s\n", note.c_str());
    notes_.push_back(note);
  }

  bool Passed() const {
    for (const TableRow& row : rows_) {
      if (row.mismatches != 0 || row.guard_hits != 0) return false;
    }
    return !rows_.empty();
  }

  void Print() const {
    std::printf("%-8s %-17s %-38s %7s %11s %10s %6s %9s %9s %6s\n", "kernel", "dtype",
                "shapes", "cases", "elements", "mismatch", "guard", "GB/s", "copy GB/s",
                "ratio");
    for (const TableRow& r : rows_) {
      std::printf("%-8s %-17s %-38s %7lld %11lld %10lld %6lld %s\n", r.kernel.c_str(),
                  r.dtype.c_str(), r.shapes.c_str(), static_cast<long long>(r.cases),
                  static_cast<long long>(r.elements),
                  static_cast<long long>(r.mismatches),
                  static_cast<long long>(r.guard_hits), Speeds(r, " ").c_str());
    }
  }

  // The table as Markdown under `heading`, with the notes and the verdict.
  bool WriteMarkdown(const char* path, const std::string& heading) const {
    FILE* file = std::fopen(path, "w");
    if (file == nullptr) return false;
    std::fprintf(file, "%s\n\n", heading.c_str());
    std::fprintf(file,
                 "| kernel | dtype | shapes | cases | elements | mismatches | "
                 "guard hits | GB/s | copy GB/s | GB/s / copy |\n"
                 "|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const TableRow& r : rows_) {
      std::fprintf(file, "| %s | %s | %s | %lld | %lld | %lld | %lld | %s |\n",
                   r.kernel.c_str(), r.dtype.c_str(), r.shapes.c_str(),
                   static_cast<long long>(r.cases), static_cast<long long>(r.elements),
                   static_cast<long long>(r.mismatches),
                   static_cast<long long>(r.guard_hits), Speeds(r, " | ").c_str());
    }
    std::fprintf(file, "\n");
    for (const std::string& note : notes_) std::fprintf(file, "- %s\n", note.c_str());
    std::fprintf(file, "\n**%s**\n", Passed() ? "PASS" : "FAIL");
    return std::fclose(file) == 0;
  }

 private:
  // GB/s of the kernel and of the copy and their ratio, or dashes: in columns
  // for the text table, trimmed for Markdown.
  static std::string Speeds(const TableRow& r, const char* separator) {
    const bool text_table = std::string(separator) == " ";
    const int width = text_table ? 9 : 0, ratio_width = text_table ? 6 : 0;
    char text[96];
    if (!r.timed) {
      std::snprintf(text, sizeof(text), "%*s%s%*s%s%*s", width, "-", separator, width,
                    "-", separator, ratio_width, "-");
    } else {
      std::snprintf(text, sizeof(text), "%*.1f%s%*.1f%s%*.2f", width, r.kernel_gbps,
                    separator, width, r.copy_gbps, separator, ratio_width,
                    r.kernel_gbps / r.copy_gbps);
    }
    return text;
  }

  std::deque<TableRow> rows_;
  std::vector<std::string> notes_;
};

// Milliseconds per call of `launch` on the default stream: the median of
// `repeats` calls timed with CUDA events, after one untimed warm-up.
template <typename Launch>
float TimeMs(const Launch& launch, int repeats = 21) {
  cudaEvent_t start, stop;
  Check(cudaEventCreate(&start), "cudaEventCreate");
  Check(cudaEventCreate(&stop), "cudaEventCreate");
  launch();
  std::vector<float> times;
  for (int i = 0; i < repeats; ++i) {
    Check(cudaEventRecord(start), "cudaEventRecord");
    launch();
    Check(cudaEventRecord(stop), "cudaEventRecord");
    Check(cudaEventSynchronize(stop), "timed launch");
    float ms = 0;
    Check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace harness
}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TOOLS_GPU_HARNESS_HARNESS_REPORT_H_
