/* trace.c: the ptrace loop of the sandbox's pid 1 (see trace.h): seize
 * the task, wait for each stop, and hand it on by what stopped it (the
 * seccomp data value: a traced file call, a connect, a unix socket), keep
 * each process's pending accesses until its call's exit stop. What the
 * other tracer files own is in trace_int.h. */
#include "trace_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "err.h"
#include "fastpath.h"
#include "filter.h"
#include "learn.h"

int trace_seize(pid_t task)
{
	long opts = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |
		PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
		PTRACE_O_EXITKILL;
	return ptrace(PTRACE_SEIZE, task, 0, (void *)opts) ? -1 : 0;
}

static struct proc *proc_get(struct tracer *t, pid_t pid, bool make)
{
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	if (!make)
		return NULL;
	if (t->nprocs == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->procs = xrealloc(t->procs, t->cap * sizeof(*t->procs));
	}
	memset(&t->procs[t->nprocs], 0, sizeof(*t->procs));
	t->procs[t->nprocs].pid = pid;
	return &t->procs[t->nprocs++];
}

static void proc_drop(struct tracer *t, pid_t pid)
{
	for (size_t i = 0; i < t->nprocs; i++) {
		if (t->procs[i].pid != pid)
			continue;
		for (int k = 0; k < t->procs[i].nev; k++) {
			trace_emit(t, pid, &t->procs[i].ev[k], 0, true);
			trace_ev_clear(&t->procs[i].ev[k]);
		}
		free(t->procs[i].cwd);
		free(t->procs[i].inval_dir);
		t->procs[i] = t->procs[--t->nprocs];
		return;
	}
}

static void on_seccomp(struct tracer *t, struct proc *pr)
{
	struct sc_info si;
	const struct sc *c;
	memset(&si, 0, sizeof(si));
	if (ptrace(PTRACE_GET_SYSCALL_INFO, pr->pid, (void *)sizeof(si), &si) <= 0 ||
		si.op != SC_OP_SECCOMP || si.seccomp.nr >= 1024)
		return;
	if (si.seccomp.nr == __NR_socket && si.seccomp.ret_data == FILTER_TRACE_UNIX) {
		trace_refuse_unix(t, pr, &si);
		return;
	}
	if (si.seccomp.nr == __NR_connect && si.seccomp.ret_data == FILTER_TRACE_CONNECT) {
		t->stops[__NR_connect]++;
		trace_on_connect(t, pr, &si);
		return;
	}
	if (!(c = t->bynr[si.seccomp.nr]))
		return;
	t->stops[si.seccomp.nr]++;
	pr->nev = 0;
	switch (trace_changes(c->nr)) {
	case 'n':
		t->dc.gen++;
		trace_cwds_forget(t);
		pr->inval = true;
		break;
	case 'c':
		trace_cwds_forget(t);
		pr->inval = true;
		break;
	}
	if (c->cls && trace_judge(t, pr, c, si.seccomp.args, c->dfd, c->path, c->cls,
			c->nofollow, &pr->ev[pr->nev]))
		pr->nev++;
	if (c->cls2 && trace_judge(t, pr, c, si.seccomp.args, c->dfd2, c->path2, c->cls2,
			c->nofollow, &pr->ev[pr->nev]))
		pr->nev++;
	/* the shim's read open in a widened plan (trace_bpf): only its success
	 * is this stop's to record; a failure the shim makes again, traced */
	if (si.ip - FAST_TRAMP_ADDR < FAST_TRAMP_SIZE)
		for (int k = 0; k < pr->nev; k++)
			pr->ev[k].fast = true;
}

static void on_exit_stop(struct tracer *t, struct proc *pr)
{
	struct sc_info si;
	int err = 0;
	if (pr->inval) {
		/* again now the call is done: a listing made while it ran goes */
		struct dent *d = pr->inval_dir ? strmap_get(&t->dc.dirs, pr->inval_dir) : NULL;
		if (d)
			d->gen = t->dc.gen - 1;
		else
			t->dc.gen++;
		trace_cwds_forget(t);
		free(pr->inval_dir);
		pr->inval_dir = NULL;
		pr->inval = false;
	}
	if (!pr->nev)
		return;
	memset(&si, 0, sizeof(si));
	if (ptrace(PTRACE_GET_SYSCALL_INFO, pr->pid, (void *)sizeof(si), &si) <= 0 ||
		si.op != SC_OP_EXIT)
		return;
	t->exits++;
	if (si.exit.is_error)
		err = (int)-si.exit.rval;
	/* ERESTART*: the call runs again after the signal and stops again */
	if (err >= 512 && err <= 516) {
		for (int k = 0; k < pr->nev; k++)
			trace_ev_clear(&pr->ev[k]);
		pr->nev = 0;
		return;
	}
	for (int k = 0; k < pr->nev; k++) {
		struct ev *e = &pr->ev[k];
		/* a refused access, or a widened read or write that went
		 * through; in a learning run (learn.h) every access the
		 * baseline refuses */
		if (!learn_on() && e->widened && e->access == 'w' && !err)
			trace_made(t, pr->pid, e);
		else if (learn_on() || (e->widened ? !err : err != 0 && !e->fast))
			trace_emit(t, pr->pid, e, err, false);
		trace_ev_clear(e);
	}
	pr->nev = 0;
}

/* The tracer's state for one task, and the trace's start record: shared by
 * the ptrace loop and the notification prototype. */
void trace_tracer_init(struct tracer *t, struct out *o, const struct sb_request *r,
	const struct plan *p)
{
	memset(t, 0, sizeof(*t));
	trace_out_init(o, r->trace_fd);
	t->r = r;
	t->p = p;
	t->o = o;
	for (size_t i = 0; i < trace_ncalls; i++)
		if (trace_calls[i].nr >= 0 && trace_calls[i].nr < 1024)
			t->bynr[trace_calls[i].nr] = &trace_calls[i];
	t->seen = trace_seen(p, r->root);
	t->fdirs = trace_fdirs(p);
	t->stats = getenv("VX_TRACE_STATS") != NULL;
	trace_snapshot(t);
	trace_start_record(t);
}

/* Frees what tracer_init and the loops share; each loop frees its own processes. */
void trace_tracer_free(struct tracer *t, struct out *o)
{
	trace_dcache_free(&t->dc);
	free(t->seen);
	free(t->fdirs);
	for (size_t i = 0; i < t->wdirs.n; i++)
		strlist_free(&t->wnames[i]);
	free(t->wnames);
	strlist_free(&t->wdirs);
	jsonw_free(&o->w);
}

/* VX_TRACE_STATS: one line of the stops, by call, at the end */
static void stats_say(const struct tracer *t)
{
	if (!t->stats)
		return;
	fprintf(stderr, "%s: trace stats: %lu exit stops; %lu signal stops; %lu event stops; entry stops:",
		err_prog(), t->exits, t->sigs, t->others);
	for (int nr = 0; nr < 1024; nr++)
		if (t->stops[nr])
			fprintf(stderr, " %s %lu", t->bynr[nr] ? t->bynr[nr]->name
				: nr == __NR_connect ? "connect" : "?", t->stops[nr]);
	fputc('\n', stderr);
}

int trace_loop(const struct sb_request *r, const struct plan *p, pid_t task)
{
	static struct out o;
	struct tracer t;
	int task_status = 0;

	trace_tracer_init(&t, &o, r, p);
	proc_get(&t, task, true)->seen = true;
	for (;;) {
		int st, sig, event;
		long req = PTRACE_CONT, data = 0;
		struct proc *pr;
		pid_t pid = waitpid(-1, &st, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			proc_drop(&t, pid);
			if (pid == task) {
				task_status = st;
				break;
			}
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		pr = proc_get(&t, pid, true);
		sig = WSTOPSIG(st);
		event = st >> 16;
		if (sig != (SIGTRAP | 0x80) && event != PTRACE_EVENT_SECCOMP) {
			if (event == 0)
				t.sigs++;
			else
				t.others++;
		}
		if (sig == (SIGTRAP | 0x80)) {
			on_exit_stop(&t, pr);
		} else if (event == PTRACE_EVENT_SECCOMP) {
			on_seccomp(&t, pr);
		} else if (event == PTRACE_EVENT_STOP) {
			if (pr->seen && (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
				sig == SIGTTOU)) {
				pr->seen = true;
				ptrace(PTRACE_LISTEN, pid, 0, 0);
				continue;
			}
		} else if (event == PTRACE_EVENT_EXEC) {
			unsigned long former = 0;
			trace_env_check(&t, pid);
			ptrace(PTRACE_GETEVENTMSG, pid, 0, &former);
			if ((pid_t)former != pid) {
				/* a thread's exec: its pending access moves to the leader */
				struct proc *fp = proc_get(&t, (pid_t)former, false);
				if (fp) {
					struct proc moved = *fp;
					fp->nev = 0;
					proc_drop(&t, (pid_t)former);
					pr = proc_get(&t, pid, true);
					for (int k = 0; k < pr->nev; k++)
						trace_ev_clear(&pr->ev[k]);
					memcpy(pr->ev, moved.ev, sizeof(pr->ev));
					pr->nev = moved.nev;
				}
			}
		} else if (event == 0) {
			data = sig; /* a signal for the tracee: deliver it */
		}
		pr->seen = true;
		if (pr->nev > 0 || pr->inval)
			req = PTRACE_SYSCALL;
		ptrace(req, pid, 0, (void *)data);
	}
	for (size_t i = 0; i < t.nprocs; i++)
		for (int k = 0; k < t.procs[i].nev; k++) {
			trace_emit(&t, t.procs[i].pid, &t.procs[i].ev[k], 0, true);
			trace_ev_clear(&t.procs[i].ev[k]);
		}
	trace_made_end(&t);
	stats_say(&t);
	trace_end_record(&o, "end", o.failed ? "a write of the trace failed" : NULL);
	if (o.failed)
		fprintf(stderr, "%s: %s: unable to write the access trace: %s\n", err_prog(),
			r->task_id, strerror(errno));
	for (size_t i = 0; i < t.nprocs; i++) {
		free(t.procs[i].cwd);
		free(t.procs[i].inval_dir);
	}
	free(t.procs);
	trace_tracer_free(&t, &o);
	return task_status;
}
