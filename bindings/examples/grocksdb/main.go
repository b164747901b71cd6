// A Go program on ShaleDB through grocksdb, the RocksDB binding, unchanged: it links ShaleDB's
// librocksdb.so (doc/rocksdb_compat.md). It opens a DB with two column families, writes a batch
// across them, reads and iterates one family within bounds, builds a table file with the SST file
// writer and ingests it, then reopens the DB and checks what it wrote.
//
// Build and run it from this folder (after `cmake --build build/release --target shale_rocksdb`):
//
//	CGO_CFLAGS="-I$PWD/../../../include/shale-rocksdb" \
//	CGO_LDFLAGS="-L$PWD/../../../build/release/lib/shale-rocksdb -Wl,-rpath,$PWD/../../../build/release/lib/shale-rocksdb" \
//	go run . /tmp/grocksdb-example
package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/linxGnu/grocksdb"
)

func main() {
	dir := filepath.Join(os.TempDir(), "grocksdb-on-shaledb")
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := os.RemoveAll(dir); err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	dbPath := filepath.Join(dir, "db")

	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	opts.SetCreateIfMissing(true)
	opts.SetCreateIfMissingColumnFamilies(true)
	families := []string{"default", "users"}

	db, handles, err := grocksdb.OpenDbColumnFamilies(opts, dbPath, families,
		[]*grocksdb.Options{opts, opts})
	if err != nil {
		log.Fatalf("open: %v", err)
	}
	users := handles[1]

	// One batch across both families: written atomically.
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	batch := grocksdb.NewWriteBatch()
	for i := 0; i < 5; i++ {
		batch.PutCF(users, []byte(fmt.Sprintf("user:%03d", i)), []byte(fmt.Sprintf("name-%d", i)))
	}
	batch.Put([]byte("config:version"), []byte("1"))
	if err := db.Write(wo, batch); err != nil {
		log.Fatalf("write: %v", err)
	}
	batch.Destroy()

	// An iterator over users 001 <= key < 004.
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetIterateUpperBound([]byte("user:004"))
	it := db.NewIteratorCF(ro, users)
	for it.Seek([]byte("user:001")); it.Valid(); it.Next() {
		k, v := it.Key(), it.Value()
		fmt.Printf("users: %s = %s\n", k.Data(), v.Data())
		k.Free()
		v.Free()
	}
	if err := it.Err(); err != nil {
		log.Fatalf("iterate: %v", err)
	}
	it.Close()

	// A table file built outside the DB, then ingested into the users family.
	envOpts := grocksdb.NewDefaultEnvOptions()
	defer envOpts.Destroy()
	writer := grocksdb.NewSSTFileWriter(envOpts, opts)
	sstPath := filepath.Join(dir, "imported.sst")
	if err := writer.Open(sstPath); err != nil {
		log.Fatalf("sst open: %v", err)
	}
	for i := 100; i < 110; i++ { // keys in increasing order, as the writer requires
		if err := writer.Add([]byte(fmt.Sprintf("user:%03d", i)), []byte("imported")); err != nil {
			log.Fatalf("sst add: %v", err)
		}
	}
	if err := writer.Finish(); err != nil {
		log.Fatalf("sst finish: %v", err)
	}
	writer.Destroy()
	ingestOpts := grocksdb.NewDefaultIngestExternalFileOptions()
	defer ingestOpts.Destroy()
	if err := db.IngestExternalFileCF(users, []string{sstPath}, ingestOpts); err != nil {
		log.Fatalf("ingest: %v", err)
	}

	for _, h := range handles {
		h.Destroy()
	}
	db.Close()

	// Reopen: everything is there.
	db, handles, err = grocksdb.OpenDbColumnFamilies(opts, dbPath, families,
		[]*grocksdb.Options{opts, opts})
	if err != nil {
		log.Fatalf("reopen: %v", err)
	}
	users = handles[1]
	count := 0
	scan := grocksdb.NewDefaultReadOptions() // no bounds
	defer scan.Destroy()
	all := db.NewIteratorCF(scan, users)
	for all.SeekToFirst(); all.Valid(); all.Next() {
		count++
	}
	all.Close()
	value, err := db.Get(scan, []byte("config:version"))
	if err != nil {
		log.Fatalf("get: %v", err)
	}
	fmt.Printf("after reopen: %d keys in users, config:version = %s\n", count, value.Data())
	value.Free()
	for _, h := range handles {
		h.Destroy()
	}
	db.Close()
	if count != 15 { // 5 written in the batch, 10 ingested
		log.Fatalf("expected 15 keys in users, got %d", count)
	}
}
