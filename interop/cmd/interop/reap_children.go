package main

import (
	"context"
	"syscall"
	"time"
)

// reapExitedNodes collects the exit status of the nodes this process started, as each exits,
// until ctx ends. tmpnet starts a node and never waits for it, so a node that dies (a fault test
// kills or stops one) stays a zombie of this process: signal 0 still reaches it, and tmpnet then
// takes it for running (it refuses to start the node again, and waits forever for it to stop).
// Only the pids of these nodes are waited for, so no other child's status is taken.
// Pids that are not this process's children are dropped at the first look (ECHILD).
func reapExitedNodes(ctx context.Context, dir string) {
	pids := map[int]bool{}
	for _, pid := range nodePIDs(dir) {
		pids[pid] = true
	}
	ticker := time.NewTicker(250 * time.Millisecond)
	defer ticker.Stop()
	for len(pids) > 0 {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		for pid := range pids {
			var status syscall.WaitStatus
			if got, err := syscall.Wait4(pid, &status, syscall.WNOHANG, nil); got == pid || err != nil {
				delete(pids, pid)
			}
		}
	}
}
