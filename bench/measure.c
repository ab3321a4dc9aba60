// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * measure OUT CMD...: run CMD with its stdout and stderr in OUT and print
 * one line: wall seconds, user seconds, system seconds, peak RSS (KiB),
 * the bytes it read through read system calls (rchar of /proc/PID/io,
 * taken before the child is reaped) and its exit status. A small C
 * program, like GNU time, so the child's peak RSS is its own and not a
 * forked interpreter's. Used by bench/fsck.sh; not part of make check.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long read_rchar(pid_t pid)
{
	char path[64], line[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "rchar: %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	siginfo_t si;
	long long rchar;
	int fd, status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: measure OUT CMD...\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (waitid(P_PID, pid, &si, WEXITED | WNOWAIT)) {
		perror("waitid");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rchar = read_rchar(pid);
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("wait4");
		return 2;
	}
	printf("%.3f %.3f %.3f %ld %lld %d\n",
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
	       ru.ru_maxrss, rchar,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
