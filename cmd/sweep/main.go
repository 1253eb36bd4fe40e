// Command sweep runs batch studies of a scene locally, on Slurm or on
// Kubernetes; see package sweep.
package main

import (
	"os"

	"github.com/sofago/sofago/sweep"
)

func main() { os.Exit(sweep.Main(os.Args[1:])) }
