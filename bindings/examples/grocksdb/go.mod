module shaledb.example/grocksdb-on-shaledb

go 1.19

require github.com/linxGnu/grocksdb v1.7.14
