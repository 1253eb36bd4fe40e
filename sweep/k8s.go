package sweep

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sofago/sofago/atomicfile"
)

// K8sOptions configure Manifest.
type K8sOptions struct {
	// Root is the local folder that the volume (kubernetes.claim) holds:
	// the results folder and the scenes must be under it, and are found
	// in the pod at the same place under kubernetes.mount.
	Root string
	// Tasks are the sweep tasks to run (default: the pending ones).
	Tasks []int
}

// Manifest returns the Kubernetes Indexed Job that runs tasks of the
// results folder dir: completions = len(tasks), completionMode Indexed;
// the pod of completion index k runs sweep task k (or the k-th of the
// tasks listed in SWEEP_TASKS when they are not 0..n−1), which reads its
// index from JOB_COMPLETION_INDEX. Failed runs still write their result
// and the pod exits 0 (task -zero), so Kubernetes retries (backoffLimitPerIndex)
// only pods that left no result: evicted, killed, crashed.
func Manifest(dir string, plan *Plan, opt K8sOptions) (map[string]any, error) {
	k := plan.Kubernetes
	if k.Image == "" {
		return nil, fmt.Errorf("kubernetes.image is missing: a container image holding the sweep program (on its PATH as sweep)")
	}
	if k.Claim == "" {
		return nil, fmt.Errorf("kubernetes.claim is missing: the PersistentVolumeClaim holding the scenes and the results folder")
	}
	mount := k.Mount
	if mount == "" {
		mount = "/data"
	}
	if !strings.HasPrefix(mount, "/") {
		return nil, fmt.Errorf("kubernetes.mount = %q: want an absolute path", mount)
	}
	root := opt.Root
	if root == "" {
		root = "."
	}
	inPod := func(local string) (string, error) {
		r := relTo(root, local)
		if filepath.IsAbs(r) || r == ".." || strings.HasPrefix(r, "../") {
			return "", fmt.Errorf("%s is not under the volume's folder %s (-root)", local, root)
		}
		return strings.TrimSuffix(mount+"/"+r, "/."), nil
	}
	dirInPod, err := inPod(dir)
	if err != nil {
		return nil, err
	}
	if _, err := inPod(fromDir(dir, plan.Scene)); err != nil {
		return nil, fmt.Errorf("the scene: %v", err)
	}
	if plan.Cache != "" {
		if _, err := inPod(fromDir(dir, plan.Cache)); err != nil {
			return nil, fmt.Errorf("the cache: %v", err)
		}
	}
	tasks := opt.Tasks
	if len(tasks) == 0 {
		return nil, fmt.Errorf("no task to run")
	}
	parallelism := k.Parallelism
	if parallelism <= 0 {
		parallelism = 4
	}
	cpu, mem := k.CPU, k.Memory
	if cpu == "" {
		cpu = "1"
	}
	if mem == "" {
		mem = "1Gi"
	}
	retries := k.Retries
	if retries <= 0 {
		retries = 1
	}
	env := []any{
		map[string]any{"name": "GOMAXPROCS", "valueFrom": map[string]any{"resourceFieldRef": map[string]any{"resource": "limits.cpu", "divisor": "1"}}},
	}
	identity := true
	for i, t := range tasks {
		identity = identity && t == i
	}
	if !identity {
		ids := make([]string, len(tasks))
		for i, t := range tasks {
			ids[i] = strconv.Itoa(t)
		}
		env = append(env, map[string]any{"name": "SWEEP_TASKS", "value": strings.Join(ids, ",")})
	}
	h := sha256.Sum256([]byte(fmt.Sprint(tasks)))
	name := dnsLabel("sweep-"+plan.Name, 50) + fmt.Sprintf("-%x", h[:3])
	labels := map[string]any{"app.kubernetes.io/name": "sofago-sweep", "sofago/sweep": dnsLabel(plan.Name, 63)}
	return map[string]any{
		"apiVersion": "batch/v1",
		"kind":       "Job",
		"metadata":   map[string]any{"name": name, "labels": labels},
		"spec": map[string]any{
			"completionMode":       "Indexed",
			"completions":          len(tasks),
			"parallelism":          min(parallelism, len(tasks)),
			"backoffLimitPerIndex": retries,
			"maxFailedIndexes":     len(tasks),
			"template": map[string]any{
				"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{
					"restartPolicy": "Never",
					"containers": []any{map[string]any{
						"name":    "task",
						"image":   k.Image,
						"command": []any{"sweep", "task", "-zero", dirInPod},
						"env":     env,
						"resources": map[string]any{
							"requests": map[string]any{"cpu": cpu, "memory": mem},
							"limits":   map[string]any{"cpu": cpu, "memory": mem},
						},
						"volumeMounts": []any{map[string]any{"name": "data", "mountPath": mount}},
					}},
					"volumes": []any{map[string]any{"name": "data", "persistentVolumeClaim": map[string]any{"claimName": k.Claim}}},
				},
			},
		},
	}, nil
}

// dnsLabel makes s a DNS label (lowercase letters, digits, '-'; at most n).
func dnsLabel(s string, n int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > n {
		out = strings.TrimRight(out[:n], "-")
	}
	if out == "" {
		out = "sweep"
	}
	return out
}

// WriteManifest writes the manifest as JSON (which is YAML too: kubectl
// apply -f takes it) to dir/job.json and returns its path.
func WriteManifest(dir string, m map[string]any) (string, error) {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, k8sManifest)
	return path, atomicfile.WriteBytes(path, append(data, '\n'))
}
