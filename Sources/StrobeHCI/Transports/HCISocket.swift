import CBlueZ

#if canImport(Glibc)
import Glibc
#endif

/// An open socket of the kernel's HCI layer (`AF_BLUETOOTH`, `BTPROTO_HCI`). Closed when it goes
/// out of scope unless its descriptor is taken over with `takeFileDescriptor()`.
///
/// Device ioctls (list, info, up, down) work only before the socket is bound to the user channel.
package struct HCISocket: ~Copyable {
    package let fileDescriptor: Int32

    /// Opens an unbound HCI socket. Throws `.bluetoothUnsupported` on a kernel without Bluetooth.
    package init() throws(TransportError) {
        let fd = cbluez_hci_socket()
        guard fd >= 0 else { throw .hciSocket(errno: -fd, call: "socket(AF_BLUETOOTH)", device: 0) }
        fileDescriptor = fd
    }

    deinit { _ = Glibc.close(fileDescriptor) }

    /// Hands the descriptor to the caller, who closes it from now on.
    package consuming func takeFileDescriptor() -> Int32 {
        let fd = fileDescriptor
        discard self
        return fd
    }

    /// Binds to hciN on the user channel: exclusive access, the kernel's stack steps aside.
    /// The device must be down.
    package func bindUserChannel(device: Int) throws(TransportError) {
        let index = try Self.index(device)
        let rc = cbluez_hci_bind_user(fileDescriptor, index)
        guard rc == 0 else { throw .hciSocket(errno: -rc, call: "bind(HCI_CHANNEL_USER)", device: device) }
    }

    /// Binds to hciN on the raw channel, beside the kernel's own stack (for monitoring).
    package func bindRawChannel(device: Int) throws(TransportError) {
        let index = try Self.index(device)
        let rc = cbluez_hci_bind_raw(fileDescriptor, index)
        guard rc == 0 else { throw .hciSocket(errno: -rc, call: "bind(HCI_CHANNEL_RAW)", device: device) }
    }

    /// Lets every packet type and event through a raw-channel socket; without it no events arrive.
    package func setFilterAllPackets() throws(TransportError) {
        let rc = cbluez_hci_set_filter_all(fileDescriptor)
        guard rc == 0 else { throw .systemCall(call: "setsockopt(HCI_FILTER)", errno: -rc) }
    }

    /// The controllers the kernel knows.
    package func devices() throws(TransportError) -> [HCIDeviceInfo] {
        var raw = [cbluez_device_info](repeating: cbluez_device_info(), count: Int(CBLUEZ_MAX_DEVICES))
        let count = raw.withUnsafeMutableBufferPointer { buffer in
            cbluez_hci_device_list(fileDescriptor, buffer.baseAddress, Int32(buffer.count))
        }
        guard count >= 0 else { throw .hciSocket(errno: -count, call: "ioctl(HCIGETDEVLIST)", device: 0) }
        return raw.prefix(Int(count)).map(HCIDeviceInfo.init)
    }

    /// One controller's index, name, address and power state.
    package func deviceInfo(device: Int) throws(TransportError) -> HCIDeviceInfo {
        let index = try Self.index(device)
        var raw = cbluez_device_info()
        let rc = cbluez_hci_device_info(fileDescriptor, index, &raw)
        guard rc == 0 else { throw .hciSocket(errno: -rc, call: "ioctl(HCIGETDEVINFO)", device: device) }
        return HCIDeviceInfo(raw)
    }

    /// Powers hciN down (HCIDEVDOWN); needs CAP_NET_ADMIN. Down already is not an error.
    package func bringDown(device: Int) throws(TransportError) {
        let index = try Self.index(device)
        let rc = cbluez_hci_device_down(fileDescriptor, index)
        guard rc == 0 else { throw .hciSocket(errno: -rc, call: "ioctl(HCIDEVDOWN)", device: device) }
    }

    /// Powers hciN up (HCIDEVUP); needs CAP_NET_ADMIN. Up already is not an error.
    package func bringUp(device: Int) throws(TransportError) {
        let index = try Self.index(device)
        let rc = cbluez_hci_device_up(fileDescriptor, index)
        guard rc == 0 || rc == -EALREADY else {
            throw .hciSocket(errno: -rc, call: "ioctl(HCIDEVUP)", device: device)
        }
    }

    /// Device indices are 16 bits; 0xFFFF means "no device" to the kernel.
    private static func index(_ device: Int) throws(TransportError) -> UInt16 {
        guard device >= 0, device < 0xFFFF else { throw .noSuchDevice(device: device) }
        return UInt16(device)
    }
}
