/* Helpers shared by the parts of the C ABI test (c_test_*.c). The test is plain C99 over
 * include/shale/c.h only, so it also proves that the header compiles as C. Every check that
 * fails prints its file, line and expression and ends the program with status 1. */
#ifndef SHALE_TEST_CAPI_C_TEST_H_
#define SHALE_TEST_CAPI_C_TEST_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shale/c.h"

/* Ends the program after printing where and why. */
void Fail(const char* file, int line, const char* what, const char* detail);

#define CHECK(cond) \
  do { \
    if (!(cond)) Fail(__FILE__, __LINE__, #cond, NULL); \
  } while (0)

/* Checks that `err` (a char*) is NULL; prints the message otherwise. */
#define CHECK_OK(err) \
  do { \
    if ((err) != NULL) Fail(__FILE__, __LINE__, "no error expected", (err)); \
  } while (0)

/* Checks that `err` (a char* lvalue) holds a message containing `text`, then frees it and
 * sets it to NULL. */
#define CHECK_ERROR(err, text) \
  do { \
    if ((err) == NULL) Fail(__FILE__, __LINE__, "an error was expected", (text)); \
    if (strstr((err), (text)) == NULL) Fail(__FILE__, __LINE__, (text), (err)); \
    shale_free(err); \
    (err) = NULL; \
  } while (0)

/* A NUL-terminated string as the (pointer, length) pair the API takes. */
#define STR(s) (s), strlen(s)

/* The directory every part works in (a fresh temporary directory) and "<dir>/<name>" in a
 * static buffer that the next call overwrites. */
extern const char* g_work_dir;
const char* WorkPath(const char* name);

/* A malloc'd, NUL-terminated copy of a value returned with a length, for comparisons. */
char* Terminated(const char* data, size_t len);

/* Options with create_if_missing set and 4 MiB write buffers (more than one memtable arena
 * block, 1 MiB). */
shale_options_t* NewTestOptions(void);

/* Opens `name` (under the work directory) with `options`; any error fails the test. */
shale_t* OpenOrFail(const shale_options_t* options, const char* name);

/* Checks that opening `name` with `options` fails with a message containing `text`. */
#define CheckOpenFails(options, name, text) \
  CheckOpenFailsAt(__FILE__, __LINE__, (options), (name), (text))
void CheckOpenFailsAt(const char* file, int line, const shale_options_t* options,
                      const char* name, const char* text);

/* Checks that `key` holds `expected` (NULL: that it is absent) as seen through `ro`. */
#define CheckGet(db, ro, key, expected) \
  CheckGetAt(__FILE__, __LINE__, (db), (ro), (key), (expected))
void CheckGetAt(const char* file, int line, shale_t* db, const shale_readoptions_t* ro,
                const char* key, const char* expected);

/* Destroys the DB `name` under the work directory; any error fails the test. */
void DestroyOrFail(const char* name);

/* Flushes the memtables and waits for it; any error fails the test. */
void FlushOrFail(shale_t* db);

/* The numeric property `name`; failing to read it fails the test. */
#define IntProperty(db, name) IntPropertyAt(__FILE__, __LINE__, (db), (name))
uint64_t IntPropertyAt(const char* file, int line, shale_t* db, const char* name);

/* The parts, in the order main runs them. */
void TestConventions(void);
void TestOpenErrors(void);
void TestOptionSetters(void);
void TestTableOptions(void);
void TestOptionsFromString(void);
void TestColumnFamilyDBOptions(void);
void TestAvoidFlushDuringShutdown(void);
void TestWritesAndReads(void);
void TestWriteBatch(void);
void TestModel(void);
void TestSnapshotsAndBounds(void);
void TestMaintenance(void);
void TestWalSyncAndFileDeletions(void);
void TestCompaction(void);
void TestStatistics(void);
void TestCorruption(void);
void TestExternalFiles(void);
void TestCheckpoint(void);
void TestBulkLoader(void);
void TestMerge(void);
void TestColumnFamilies(void);
void TestReadOnly(void);
void TestWalIterator(void);
void TestCompactionFilter(void);
void TestSecondary(void);
void TestRepair(void);

/* What a shale_progress_callback saw (RecordProgress), checked by CheckProgressLog: at least
 * one report, done counts that never shrink, one final report and nothing after it, the
 * operation's name on every report. */
typedef struct ProgressLog {
  int reports;
  int finished_reports;
  int reports_after_finished;
  int shrank;
  int bad_fraction;
  uint64_t last_entries_done;
  char operation[32];
} ProgressLog;
void RecordProgress(void* arg, const shale_progress_t* progress);
void CheckProgressLog(const ProgressLog* log, const char* operation);

#endif /* SHALE_TEST_CAPI_C_TEST_H_ */
