// Package suite only pins grocksdb for `go test -c github.com/linxGnu/grocksdb`, which builds the
// binding's own, unmodified tests against ShaleDB's librocksdb.so.
package suite

import _ "github.com/linxGnu/grocksdb"
