// The C ABI of progress reports (shale_progress_*, include/shale/c.h) over shale/progress.h:
// the getters of a report, and the adapter from a C callback to a ProgressCallback.
#include <cmath>
#include <string>

#include "capi/c_handles.h"

struct shale_progress_t {
  const shale::Progress* rep;
};

namespace shale::capi {

Status MakeProgressCallback(shale_progress_callback callback, void* arg, double interval_seconds,
                            const char* what, ProgressCallback* out) {
  if (std::isnan(interval_seconds) || interval_seconds < 0) {
    return Status::InvalidArgument(
        what, "the progress interval must be a number of seconds >= 0, not " +
                  std::to_string(interval_seconds));
  }
  if (callback == nullptr) {
    *out = nullptr;
    return Status::OK();
  }
  *out = [callback, arg](const Progress& p) {
    const shale_progress_t handle{&p};
    callback(arg, &handle);
  };
  return Status::OK();
}

}  // namespace shale::capi

extern "C" {

const char* shale_progress_operation(const shale_progress_t* p) { return p->rep->operation; }
const char* shale_progress_stage(const shale_progress_t* p) { return p->rep->stage; }
uint64_t shale_progress_bytes_done(const shale_progress_t* p) { return p->rep->bytes_done; }
uint64_t shale_progress_bytes_total(const shale_progress_t* p) { return p->rep->bytes_total; }
uint64_t shale_progress_entries_done(const shale_progress_t* p) { return p->rep->entries_done; }
uint64_t shale_progress_entries_total(const shale_progress_t* p) {
  return p->rep->entries_total;
}
double shale_progress_elapsed_seconds(const shale_progress_t* p) {
  return p->rep->elapsed_seconds;
}
double shale_progress_bytes_per_second(const shale_progress_t* p) {
  return p->rep->bytes_per_second;
}
double shale_progress_eta_seconds(const shale_progress_t* p) { return p->rep->eta_seconds; }
double shale_progress_fraction(const shale_progress_t* p) { return p->rep->fraction(); }
unsigned char shale_progress_finished(const shale_progress_t* p) {
  return p->rep->finished ? 1 : 0;
}

}  // extern "C"
