// Command runscene runs a scene headless: runscene [flags] SCENE.toml.
// The program is package runscene (importable, so a module of your own can
// build a runscene with its own components registered); see its doc.
package main

import (
	"os"

	"github.com/sofago/sofago/runscene"
)

func main() { os.Exit(runscene.Main(os.Args[1:])) }
