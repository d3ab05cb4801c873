/*
 * hci-helper: a small, statically linked companion for the kernel guest tests.
 * It pins down what the kernel itself does, so that a failing strobe test can be
 * told apart from a kernel or environment problem.
 *
 *   hci-helper bind IDX      bind HCI_CHANNEL_USER once; prints "bound hciN" or
 *                            "bind hciN: ENAME (text)"; exit 0 if bound, else 1
 *   hci-helper down IDX      HCIDEVDOWN once; prints "down hciN" or "down hciN: ENAME (text)"
 *   hci-helper reset IDX     bring hciN down, bind HCI_CHANNEL_USER (waiting while the
 *                            kernel still sets the device up), send HCI_Reset and
 *                            expect its Command Complete with status 0; then close
 *   hci-helper hold IDX      bind like reset, print "holding hciN", keep the device
 *                            until SIGTERM
 *   hci-helper unprivileged PROG ARGS...
 *                            drop to uid/gid 65534 with no supplementary groups
 *                            (and so no capabilities), then exec PROG
 *
 * Constants are from the kernel's uapi (include/net/bluetooth/hci_sock.h), so no
 * Bluetooth headers are needed to build it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_BLUETOOTH
#define AF_BLUETOOTH 31
#endif
#define BTPROTO_HCI 1
#define HCI_CHANNEL_USER 1
#define HCIDEVDOWN _IOW('H', 202, int)

/* H4 packet indicators and the one command we send. */
#define H4_COMMAND 0x01
#define H4_EVENT 0x04
#define EVT_COMMAND_COMPLETE 0x0e
#define OPCODE_RESET 0x0c03

/* How long to wait for the kernel to finish setting a new controller up. */
#define SETUP_WAIT_MS 10000
#define REPLY_WAIT_MS 5000

struct sockaddr_hci {
    sa_family_t hci_family;
    unsigned short hci_dev;
    unsigned short hci_channel;
};

static const char *errno_name(int e) {
    switch (e) {
    case EPERM: return "EPERM";
    case EBUSY: return "EBUSY";
    case ENODEV: return "ENODEV";
    case EUSERS: return "EUSERS";
    case EALREADY: return "EALREADY";
    case EINVAL: return "EINVAL";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    case ERFKILL: return "ERFKILL";
    default: return "E?";
    }
}

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int hci_socket(void) {
    int s = socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI);
    if (s < 0) {
        int e = errno;
        printf("socket(AF_BLUETOOTH): %s (%s)\n", errno_name(e), strerror(e));
        exit(2);
    }
    return s;
}

static int bind_user(int s, int idx) {
    struct sockaddr_hci a = {.hci_family = AF_BLUETOOTH, .hci_dev = (unsigned short)idx,
                             .hci_channel = HCI_CHANNEL_USER};
    return bind(s, (struct sockaddr *)&a, sizeof a);
}

static int mode_bind(int idx) {
    int s = hci_socket();
    if (bind_user(s, idx) < 0) {
        int e = errno;
        printf("bind hci%d: %s (%s)\n", idx, errno_name(e), strerror(e));
        return 1;
    }
    printf("bound hci%d\n", idx);
    close(s);
    return 0;
}

static int mode_down(int idx) {
    int s = hci_socket();
    if (ioctl(s, HCIDEVDOWN, idx) < 0) {
        int e = errno;
        printf("down hci%d: %s (%s)\n", idx, errno_name(e), strerror(e));
        return 1;
    }
    printf("down hci%d\n", idx);
    close(s);
    return 0;
}

/* Down first (it may be up in its auto-off grace period), then bind; EBUSY while the
   kernel is still in SETUP/INIT for a just-registered controller, so poll for that. */
static int open_user(int idx) {
    int ctl = hci_socket();
    (void)ioctl(ctl, HCIDEVDOWN, idx);
    close(ctl);
    int s = hci_socket();
    long long deadline = now_ms() + SETUP_WAIT_MS;
    for (;;) {
        if (bind_user(s, idx) == 0) return s;
        int e = errno;
        if (e != EBUSY || now_ms() > deadline) {
            printf("bind hci%d: %s (%s)\n", idx, errno_name(e), strerror(e));
            exit(1);
        }
        struct timespec pause_ts = {0, 10 * 1000 * 1000};
        nanosleep(&pause_ts, NULL);
    }
}

static int mode_reset(int idx) {
    int s = open_user(idx);
    const uint8_t reset[4] = {H4_COMMAND, OPCODE_RESET & 0xff, OPCODE_RESET >> 8, 0};
    if (write(s, reset, sizeof reset) != (ssize_t)sizeof reset) {
        printf("write HCI_Reset: %s\n", strerror(errno));
        return 1;
    }
    long long deadline = now_ms() + REPLY_WAIT_MS;
    uint8_t buf[300];
    while (now_ms() < deadline) {
        struct pollfd p = {.fd = s, .events = POLLIN};
        int r = poll(&p, 1, (int)(deadline - now_ms()) + 1);
        if (r <= 0) continue;
        ssize_t n = read(s, buf, sizeof buf);
        if (n < 0) {
            printf("read: %s\n", strerror(errno));
            return 1;
        }
        /* 04 0e len ncmd opcode(2) status */
        if (n >= 7 && buf[0] == H4_EVENT && buf[1] == EVT_COMMAND_COMPLETE &&
            (buf[4] | buf[5] << 8) == OPCODE_RESET) {
            printf("hci%d: HCI_Reset Command Complete, status 0x%02x\n", idx, buf[6]);
            close(s);
            return buf[6] == 0 ? 0 : 1;
        }
    }
    printf("hci%d: no Command Complete for HCI_Reset within %d ms\n", idx, REPLY_WAIT_MS);
    return 1;
}

static void on_term(int sig) { (void)sig; _exit(0); }

static _Noreturn void mode_hold(int idx) {
    (void)open_user(idx);
    signal(SIGTERM, on_term);
    printf("holding hci%d\n", idx);
    fflush(stdout);
    for (;;) pause(); /* the socket, and with it the device, is released at exit */
}

static int mode_unprivileged(char **argv) {
    const gid_t nobody = 65534;
    if (setgroups(0, NULL) < 0 || setgid(nobody) < 0 || setuid(nobody) < 0) {
        printf("dropping privileges: %s\n", strerror(errno));
        return 2;
    }
    if (geteuid() != nobody) return 2;
    execvp(argv[0], argv);
    printf("exec %s: %s\n", argv[0], strerror(errno));
    return 127;
}

static int parse_index(const char *text) {
    char *end;
    long v = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < 0 || v > 0xfffe) {
        fprintf(stderr, "bad controller index: %s\n", text);
        exit(64);
    }
    return (int)v;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 3 && !strcmp(argv[1], "bind")) return mode_bind(parse_index(argv[2]));
    if (argc == 3 && !strcmp(argv[1], "down")) return mode_down(parse_index(argv[2]));
    if (argc == 3 && !strcmp(argv[1], "reset")) return mode_reset(parse_index(argv[2]));
    if (argc == 3 && !strcmp(argv[1], "hold")) mode_hold(parse_index(argv[2]));
    if (argc >= 3 && !strcmp(argv[1], "unprivileged")) return mode_unprivileged(argv + 2);
    fprintf(stderr, "usage: %s bind IDX | down IDX | reset IDX | hold IDX | unprivileged PROG ARGS...\n", argv[0]);
    return 64;
}
