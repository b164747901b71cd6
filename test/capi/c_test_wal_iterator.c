/* The WAL iterator through the C ABI (shale_get_updates_since, shale_wal_iter_*,
 * shale_writebatch_data): batches come back with their sequences and their bytes, polling sees
 * later writes, a start no WAL holds any more is an error, disableWAL writes make a gap. */
#define _POSIX_C_SOURCE 200809L

#include <time.h>

#include "c_test.h"

/* Reads every batch the iterator has, checking that each starts where the previous ended and
 * that its bytes are those of `expected[i]` (the batches written, in order) from `*next_index`
 * on; returns the number read. */
static int DrainAndCheck(shale_wal_iterator_t* it, shale_writebatch_t** expected,
                         const uint64_t* expected_seq, int* next_index) {
  int read = 0;
  for (; shale_wal_iter_valid(it); shale_wal_iter_next(it)) {
    uint64_t seq = 0;
    shale_writebatch_t* batch = shale_wal_iter_get_batch(it, &seq);
    CHECK(batch != NULL);
    size_t got_len = 0, want_len = 0;
    const char* got = shale_writebatch_data(batch, &got_len);
    const char* want = shale_writebatch_data(expected[*next_index], &want_len);
    CHECK(seq == expected_seq[*next_index]);
    CHECK(got_len == want_len);
    CHECK(memcmp(got, want, got_len) == 0);
    CHECK(shale_writebatch_count(batch) == shale_writebatch_count(expected[*next_index]));
    shale_writebatch_destroy(batch);
    (*next_index)++;
    read++;
  }
  return read;
}

void TestWalIterator(void) {
  shale_options_t* options = NewTestOptions();
  shale_writeoptions_t* wo = shale_writeoptions_create();
  shale_writeoptions_t* no_wal = shale_writeoptions_create();
  shale_writeoptions_disable_WAL(no_wal, 1);
  char* err = NULL;
  shale_t* db = OpenOrFail(options, "wal_iter");

  /* Not written yet. */
  CHECK(shale_get_updates_since(db, 1, &err) == NULL);
  CHECK_ERROR(err, "Requested sequence not yet written in the db");

  shale_writebatch_t* batches[6];
  uint64_t seqs[6];
  for (int i = 0; i < 6; i++) {
    char key[32];
    batches[i] = shale_writebatch_create();
    for (int j = 0; j <= i % 3; j++) {
      snprintf(key, sizeof(key), "k%d_%d", i, j);
      shale_writebatch_put(batches[i], STR(key), STR("value"));
    }
    if (i == 1) shale_writebatch_delete(batches[i], STR("k0_0"));
    if (i < 4) {
      shale_write(db, wo, batches[i], &err);
      CHECK_OK(err);
      seqs[i] = shale_get_latest_sequence_number(db) -
                (uint64_t)shale_writebatch_count(batches[i]) + 1;
    }
  }

  /* From 0: every batch, in order, byte for byte; then the end, without an error. */
  shale_wal_iterator_t* it = shale_get_updates_since(db, 0, &err);
  CHECK_OK(err);
  CHECK(it != NULL);
  int index = 0;
  CHECK(DrainAndCheck(it, batches, seqs, &index) == 4);
  shale_wal_iter_status(it, &err);
  CHECK_OK(err);
  uint64_t seq = 7;
  CHECK(shale_wal_iter_get_batch(it, &seq) == NULL);
  CHECK(seq == 0);

  /* Polling: a later write is seen by the same iterator. */
  shale_write(db, wo, batches[4], &err);
  CHECK_OK(err);
  seqs[4] = shale_get_latest_sequence_number(db) - (uint64_t)shale_writebatch_count(batches[4]) + 1;
  shale_wal_iter_next(it);
  CHECK(DrainAndCheck(it, batches, seqs, &index) == 1);
  shale_wal_iter_status(it, &err);
  CHECK_OK(err);

  /* From the middle of batch 2: that batch first. */
  shale_wal_iterator_t* mid = shale_get_updates_since(db, seqs[2] + 1, &err);
  CHECK_OK(err);
  index = 2;
  CHECK(DrainAndCheck(mid, batches, seqs, &index) == 3);
  shale_wal_iter_destroy(mid);

  /* A disableWAL write, then one with the WAL: the iterator reports the gap. */
  shale_writebatch_t* hidden = shale_writebatch_create();
  shale_writebatch_put(hidden, STR("hidden"), STR("x"));
  shale_write(db, no_wal, hidden, &err);
  CHECK_OK(err);
  shale_write(db, wo, batches[5], &err);
  CHECK_OK(err);
  shale_wal_iter_next(it);
  CHECK(!shale_wal_iter_valid(it));
  shale_wal_iter_status(it, &err);
  CHECK_ERROR(err, "Corruption: Gap in sequence numbers");
  shale_wal_iter_destroy(it);

  /* After a flush deleted the WAL: the old sequences are gone, and the call says so. */
  FlushOrFail(db);
  shale_write(db, wo, batches[0], &err);
  CHECK_OK(err);
  /* The flush deletes the old WAL just after it returns: wait for that (at most 20 s). */
  for (int tries = 0; tries < 20000; tries++) {
    shale_wal_iterator_t* old = shale_get_updates_since(db, 1, &err);
    if (old == NULL) break;
    shale_wal_iter_destroy(old);
    const struct timespec millisecond = {0, 1000000};
    nanosleep(&millisecond, NULL);
  }
  CHECK_ERROR(err, "NotFound: Requested sequence is older than the oldest WAL");
  it = shale_get_updates_since(db, shale_get_latest_sequence_number(db), &err);
  CHECK_OK(err);
  CHECK(shale_wal_iter_valid(it));
  shale_wal_iter_destroy(it);
  shale_wal_iter_destroy(NULL);

  for (int i = 0; i < 6; i++) shale_writebatch_destroy(batches[i]);
  shale_writebatch_destroy(hidden);
  shale_close(db);
  DestroyOrFail("wal_iter");
  shale_writeoptions_destroy(no_wal);
  shale_writeoptions_destroy(wo);
  shale_options_destroy(options);
}
