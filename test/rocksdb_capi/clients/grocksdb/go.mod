// The module the grocksdb suite runner (../run_client_suite.py) builds grocksdb v1.7.14's own
// test suite from: it pins the version and its test dependencies (go.sum).
module shaledb.test/grocksdb-suite

go 1.19

require github.com/linxGnu/grocksdb v1.7.14

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/stretchr/testify v1.8.1 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
