package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// slurmUp skips the test unless a Slurm cluster answers here with a
// usable node (scripts/slurm-local.sh starts a single-node one; .ci/run
// calls it).
func slurmUp(t *testing.T) {
	t.Helper()
	for _, c := range []string{"sbatch", "squeue", "scancel", "scontrol", "sinfo"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("Slurm is not installed (%s not on PATH); scripts/slurm-local.sh installs and starts a single-node Slurm", c)
		}
	}
	out, err := exec.Command("scontrol", "ping").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "UP") {
		t.Skipf("slurmctld does not answer (scontrol ping: %s); scripts/slurm-local.sh starts it", strings.TrimSpace(string(out)))
	}
	out, _ = exec.Command("sinfo", "-h", "-o", "%T").Output()
	for _, st := range strings.Fields(string(out)) {
		if st == "idle" || strings.HasPrefix(st, "mix") || strings.HasPrefix(st, "alloc") {
			return
		}
	}
	t.Skipf("no Slurm node is up (sinfo: %s); scripts/slurm-local.sh starts slurmd", strings.TrimSpace(string(out)))
}

// The sweep of 8 tasks on a real Slurm, as one job array: task 5 fails
// (its mesh file is missing), task 7 is cancelled with scancel while it
// runs. The table shows both (failed with its error; interrupted, with
// no result), a resubmission runs exactly those two (the array "5,7") and
// no other result changes. Then the local runner on the same sweep gives
// the same table, byte for byte (CSV and JSON lines: bit-identical
// figures).
func TestSlurmFailCancelRerun(t *testing.T) {
	slurmUp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir := t.TempDir()
	sw := setupSweep(t, dir, longSteps)
	res := filepath.Join(dir, "slurm")
	preparePlan(t, sw, res)

	// The dry run prints the script and the command, and submits nothing.
	var dry bytes.Buffer
	if _, todo, err := Submit(ctx, res, SubmitOptions{DryRun: true, Out: &dry}); err != nil || len(todo) != 8 {
		t.Fatalf("dry run: %v %v", todo, err)
	}
	for _, w := range []string{"#!/bin/bash\n", "#SBATCH --job-name=sweep-test_sweep\n", "#SBATCH --output=" + filepath.Join(res, "logs", "slurm-%A_%a.log") + "\n",
		"exec '" + filepath.Join(res, "bin", "sweep") + "' task '" + res + "' \"$SLURM_ARRAY_TASK_ID\"\n", "# sbatch --parsable --array=0-7 " + filepath.Join(res, "job.sh")} {
		if !strings.Contains(dry.String(), w) {
			t.Errorf("dry run lacks %q:\n%s", w, dry.String())
		}
	}
	if _, err := os.Stat(filepath.Join(res, jobsFile)); !os.IsNotExist(err) {
		t.Fatal("the dry run submitted a job")
	}

	var log bytes.Buffer
	id, todo, err := Submit(ctx, res, SubmitOptions{Out: &log})
	if err != nil {
		t.Fatal(err)
	}
	if len(todo) != 8 {
		t.Fatalf("submitted %v", todo)
	}
	// Cancel task 7 while it runs.
	mp := filepath.Join(res, runningDir, taskName(7)+".json")
	waitFor(t, "task 7 to start on Slurm", 2*time.Minute, func() bool { _, err := os.Stat(mp); return err == nil })
	time.Sleep(300 * time.Millisecond)
	if out, err := exec.Command("scancel", id+"_7").CombinedOutput(); err != nil {
		t.Fatalf("scancel %s_7: %v %s", id, err, out)
	}
	if err := WaitSlurm(ctx, res, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	st := states(t, res)
	if st[5].Status != StatusFailed || st[5].Result.Exit != 1 || !strings.Contains(st[5].Result.Error, "bar5.vtk") || st[5].Result.Job != id+"_5" {
		t.Errorf("task 5: %+v %+v", st[5], st[5].Result)
	}
	if st[7].Status != StatusInterrupted || st[7].Result != nil || !strings.Contains(st[7].Note, id+"_7") {
		t.Errorf("task 7: %+v", st[7])
	}
	_, _, rows := table(t, res)
	if s := strings.Join(column(t, rows, "status"), " "); s != "ok ok ok ok ok failed ok interrupted" {
		t.Errorf("statuses %s", s)
	}
	for i := 0; i < 7; i++ {
		if i != 5 {
			checkFigures(t, res, i, 5)
		}
	}
	before := map[int][]byte{}
	for i := 0; i < 8; i++ {
		before[i], _ = readResult(t, res, i)
	}

	// Resubmit after adding the missing mesh: the array is tasks 5 and 7.
	addMissingMesh(t, dir)
	_, todo, err = Submit(ctx, res, SubmitOptions{Out: &log})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(todo, []int{5, 7}) {
		t.Errorf("resubmitted %v, want [5 7]", todo)
	}
	if err := WaitSlurm(ctx, res, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 8; i++ {
		after, _ := readResult(t, res, i)
		if i != 5 && i != 7 && !bytes.Equal(before[i], after) {
			t.Errorf("task %d's result changed in the rerun", i)
		}
	}
	checkFigures(t, res, 5, 5)
	checkFigures(t, res, 7, longSteps)
	jobs, _ := Jobs(res)
	if len(jobs) != 2 {
		t.Errorf("jobs.txt lists %v", jobs)
	}
	// Nothing left: a third submission submits nothing.
	if id3, todo, err := Submit(ctx, res, SubmitOptions{Out: &log}); err != nil || id3 != "" || len(todo) != 0 {
		t.Errorf("third submission: %q %v %v", id3, todo, err)
	}

	// The local runner on the same sweep gives the same table.
	loc := filepath.Join(dir, "local")
	preparePlan(t, sw, loc)
	rep, err := RunLocal(ctx, loc, LocalOptions{Workers: 2})
	if err != nil || rep.Failed != 0 {
		t.Fatalf("local run: %v %v", rep, err)
	}
	sc, sj, _ := table(t, res)
	lc, lj, _ := table(t, loc)
	if !bytes.Equal(sc, lc) {
		t.Errorf("CSV tables differ:\nSlurm:\n%s\nlocal:\n%s", sc, lc)
	}
	if !bytes.Equal(sj, lj) {
		t.Errorf("JSON lines differ:\nSlurm:\n%s\nlocal:\n%s", sj, lj)
	}
	// The tables hold every figure bit for bit: the result files agree
	// with them exactly.
	for i := 0; i < 8; i++ {
		_, a := readResult(t, res, i)
		_, b := readResult(t, loc, i)
		fa, _ := json.Marshal(a.Figures)
		fb, _ := json.Marshal(b.Figures)
		if !bytes.Equal(fa, fb) {
			t.Errorf("task %d: figures differ: %s vs %s", i, fa, fb)
		}
	}
}
