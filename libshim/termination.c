/*
 * termination.c -- writing the profile when the program is told to terminate.
 *
 * A program stopped with Ctrl-C or `kill` never reaches exit(), so the atexit handler
 * never writes its profile. For SIGINT, SIGTERM and SIGHUP, when the program has left
 * the signal at its default action (terminate), shim installs a handler; a signal the
 * program handles or ignores itself is left alone (its handler runs as before, and if
 * it ends with exit(), the atexit handler writes the profile).
 *
 * Writing a profile is not async-signal-safe (it allocates and does I/O), so the handler
 * does not: it wakes a writer thread, created at start with every signal blocked, which
 * calls shim_stop() like any thread would; the handler waits for it (at most
 * WRITER_WAIT_MS: if the signal interrupted the program while it held a lock the writer
 * needs, the profile is given up rather than the process hung), then restores the
 * default action and raises the signal again, so the program dies of it exactly as it
 * would have -- same signal, same exit status, and the parent sees it.
 *
 * SIGINT is special: some programs install their own SIGINT handler only when they find
 * it at SIG_DFL (CPython's KeyboardInterrupt). When shim starts before main() (shimrun's
 * constructor), a handler of shim's would be what they find, and they would never install
 * theirs. So SIGINT is taken only when the program itself calls shim_start(), after it
 * has had its say, or when SHIM_SIGINT=on asks for it; under shimrun it is left as it is
 * unless asked (shimrun --sigint), and a program that handles it and ends with exit()
 * still writes its profile from the atexit handler. SHIM_SIGINT=off never takes it.
 *
 * After fork(), the child has no writer thread: a child that starts shim again gets one
 * of its own at that start (the handlers, inherited, find it by the process id).
 *
 * Everything the handler calls is async-signal-safe: sem_post, nanosleep, sigaction,
 * raise, getpid, write. _exit() (lifecycle.c) waits for the writer the same way, for a
 * program that leaves by it and so runs no atexit handler.
 */
#include "libshim/termination.h"
#include "libshim/internal.h"
#include "libshim/threads.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"

#define WRITER_WAIT_MS 5000

static const int handled[] = {SIGINT, SIGTERM, SIGHUP};

static sem_t wake;
static pid_t writer_pid; /* the process whose writer thread exists */
static int terminating;  /* set by the first terminating signal */
static int written;      /* set by the writer when the profile is done */

static void *writer_main(void *arg)
{
    (void)arg;
    while (sem_wait(&wake) != 0 && errno == EINTR)
        ;
    shim_stop(); /* writes the profile, if an observer is running */
    __atomic_store_n(&written, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void write_stderr(const char *text) /* async-signal-safe, unlike lifecycle.c's say() */
{
    ssize_t ignored = write(STDERR_FILENO, text, strlen(text));
    (void)ignored;
}

/* Wakes the writer and waits for the profile, once per process, in the process whose
 * writer it is (after fork() or vfork() the child's process id is another). */
static void write_before_end(void)
{
    if (writer_pid == getpid() && !__atomic_exchange_n(&terminating, 1, __ATOMIC_ACQ_REL)) {
        sem_post(&wake);
        struct timespec ten_ms = {0, 10 * 1000 * 1000};
        for (int waited = 0; waited < WRITER_WAIT_MS; waited += 10) {
            if (__atomic_load_n(&written, __ATOMIC_ACQUIRE)) break;
            nanosleep(&ten_ms, NULL);
        }
        if (!__atomic_load_n(&written, __ATOMIC_ACQUIRE))
            write_stderr("shim: the profile could not be written before the program terminated\n");
    }
}

void termination_before_exit(void)
{
    int saved_errno = errno;
    if (run_going()) write_before_end();
    errno = saved_errno;
}

static void on_terminate(int sig)
{
    int saved_errno = errno;
    write_before_end();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    raise(sig); /* delivered when this handler returns: the program dies of it */
    errno = saved_errno;
}

/* The writer thread of this process, started once (a child of fork() starts its own). */
static int start_writer(void)
{
    sigset_t all, old;
    pthread_t writer;
    pthread_attr_t attr;
    if (writer_pid == getpid()) return 0;
    if (sem_init(&wake, 0, 0) != 0) return -1;
    sigfillset(&all);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the writer inherits a full mask */
    int err = threads_create_internal(&writer, &attr, writer_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (err) return -1; /* then the atexit handler is all there is */
    pthread_setname_np(writer, "shim-writer");
    writer_pid = getpid();
    return 0;
}

void termination_install(int take_sigint)
{
    if (start_writer() != 0) return;
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) {
        struct sigaction current, ours;
        if (handled[i] == SIGINT && !take_sigint) continue;
        if (sigaction(handled[i], NULL, &current) != 0) continue;
        if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO)) continue;
        memset(&ours, 0, sizeof ours);
        ours.sa_handler = on_terminate;
        sigemptyset(&ours.sa_mask);
        sigaction(handled[i], &ours, NULL);
    }
}

void termination_after_fork_child(void)
{
    /* writer_pid no longer matches getpid(): the handler goes straight to the default
     * action, as the child would without shim. */
    terminating = 0;
    written = 0;
}
