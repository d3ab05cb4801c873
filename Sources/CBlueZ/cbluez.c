#include "CBlueZ.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>

int cbluez_hci_socket(void) {
    int fd = socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI);
    return fd < 0 ? -errno : fd;
}

static int bind_channel(int fd, uint16_t device, uint16_t channel) {
    struct sockaddr_hci addr;
    memset(&addr, 0, sizeof addr);
    addr.hci_family = AF_BLUETOOTH;
    addr.hci_dev = device;
    addr.hci_channel = channel;
    return bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0 ? -errno : 0;
}

int cbluez_hci_bind_user(int fd, uint16_t device) { return bind_channel(fd, device, HCI_CHANNEL_USER); }

int cbluez_hci_bind_raw(int fd, uint16_t device) { return bind_channel(fd, device, HCI_CHANNEL_RAW); }

int cbluez_hci_set_filter_all(int fd) {
    /* Without a filter the raw channel delivers no events at all. */
    struct hci_filter filter;
    memset(&filter, 0, sizeof filter);
    filter.type_mask = 0xffffffffu;
    filter.event_mask[0] = 0xffffffffu;
    filter.event_mask[1] = 0xffffffffu;
    return setsockopt(fd, SOL_HCI, HCI_FILTER, &filter, sizeof filter) < 0 ? -errno : 0;
}

static void copy_info(const struct hci_dev_info *di, cbluez_device_info *out) {
    memset(out, 0, sizeof *out);
    out->index = di->dev_id;
    memcpy(out->name, di->name, sizeof di->name);
    out->name[sizeof out->name - 1] = '\0';
    memcpy(out->address, di->bdaddr.b, sizeof out->address);
    out->flags = di->flags;
    out->is_up = (di->flags & (1u << HCI_UP)) ? 1 : 0;
}

int cbluez_hci_device_info(int fd, uint16_t device, cbluez_device_info *out) {
    struct hci_dev_info di;
    memset(&di, 0, sizeof di);
    di.dev_id = device;
    if (ioctl(fd, HCIGETDEVINFO, (void *)&di) < 0) return -errno;
    copy_info(&di, out);
    return 0;
}

int cbluez_hci_device_list(int fd, cbluez_device_info *out, int capacity) {
    if (capacity < 0) return -EINVAL;
    struct hci_dev_list_req *list = calloc(1, sizeof *list + HCI_MAX_DEV * sizeof(struct hci_dev_req));
    if (list == NULL) return -ENOMEM;
    list->dev_num = HCI_MAX_DEV;
    if (ioctl(fd, HCIGETDEVLIST, (void *)list) < 0) {
        int error = errno;
        free(list);
        return -error;
    }

    int count = 0;
    for (int i = 0; i < list->dev_num && i < HCI_MAX_DEV && count < capacity; i++) {
        int rc = cbluez_hci_device_info(fd, list->dev_req[i].dev_id, &out[count]);
        /* A device can vanish between the two calls; skip it rather than fail the list. */
        if (rc == -ENODEV) continue;
        if (rc < 0) {
            free(list);
            return rc;
        }
        count++;
    }
    free(list);
    return count;
}

int cbluez_hci_device_down(int fd, uint16_t device) {
    return ioctl(fd, HCIDEVDOWN, (unsigned long)device) < 0 ? -errno : 0;
}

int cbluez_hci_device_up(int fd, uint16_t device) {
    return ioctl(fd, HCIDEVUP, (unsigned long)device) < 0 ? -errno : 0;
}
