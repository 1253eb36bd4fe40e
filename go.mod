module github.com/sofago/sofago

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/hschendel/stl v1.0.4
)
