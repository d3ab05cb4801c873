#ifndef CBLUEZ_H
#define CBLUEZ_H

/*
 * The kernel's HCI socket (AF_BLUETOOTH, BTPROTO_HCI), and nothing else.
 *
 * The implementation uses the libbluetooth-dev headers for the kernel ABI but does not link
 * libbluetooth: every call is a plain system call. This header is self-contained so that Swift
 * sees only these declarations. Every function returns a value >= 0 on success and -errno on
 * failure.
 */

#include <stdint.h>

/* The largest number of devices one device-list request asks for (the kernel's HCI_MAX_DEV). */
#define CBLUEZ_MAX_DEVICES 16

/* One controller known to the kernel (HCIGETDEVINFO, reduced to what the host needs). */
typedef struct cbluez_device_info {
    uint16_t index;      /* N in hciN */
    char name[9];        /* "hci0", NUL-terminated */
    uint8_t address[6];  /* BD_ADDR, wire order (least significant byte first) */
    uint8_t is_up;       /* HCI_UP is set */
    uint32_t flags;      /* the kernel's device flags, for diagnostics */
} cbluez_device_info;

/* A new HCI socket: socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI). Returns the fd. */
int cbluez_hci_socket(void);

/* Binds the socket to hciN on the user channel (exclusive access; the device must be down). */
int cbluez_hci_bind_user(int fd, uint16_t device);

/* Binds the socket to hciN on the raw channel (shared with the kernel's own stack). */
int cbluez_hci_bind_raw(int fd, uint16_t device);

/* Lets every packet type and every event through a raw-channel socket (HCI_FILTER). */
int cbluez_hci_set_filter_all(int fd);

/* Fills up to `capacity` entries of `out` (HCIGETDEVLIST then HCIGETDEVINFO). Returns the count. */
int cbluez_hci_device_list(int fd, cbluez_device_info *out, int capacity);

/* Information about one device (HCIGETDEVINFO). */
int cbluez_hci_device_info(int fd, uint16_t device, cbluez_device_info *out);

/* Brings hciN down (HCIDEVDOWN) or up (HCIDEVUP). Both need CAP_NET_ADMIN. */
int cbluez_hci_device_down(int fd, uint16_t device);
int cbluez_hci_device_up(int fd, uint16_t device);

#endif
