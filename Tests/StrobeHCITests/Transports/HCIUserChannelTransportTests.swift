import Testing
import StrobeHCI

#if canImport(Glibc)
import Glibc
#endif

/// What this kernel says to an HCI socket, found independently of the code under test.
private enum KernelBluetooth {
    case unsupported
    case available
    case otherError(Int32)

    static func probe() -> KernelBluetooth {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 1)  // BTPROTO_HCI
        if fd >= 0 {
            _ = close(fd)
            return .available
        }
        let code = errno
        return code == EAFNOSUPPORT ? .unsupported : .otherError(code)
    }
}

extension Transports {
    @Suite("HCI user channel", .timeLimit(.minutes(1)))
    struct HCIUserChannelTransportTests {
        @Test func startReportsWhyTheKernelCannotGiveTheDevice() throws {
            let transport = HCIUserChannelTransport(device: 0)
            #expect(transport.name == "hci0")
            let sink = RecordingSink()
            switch KernelBluetooth.probe() {
            case .unsupported:
                #expect(throws: TransportError.bluetoothUnsupported) { try transport.start(sink) }
                #expect(throws: TransportError.bluetoothUnsupported) { try HCIDeviceList.devices() }
                #expect(throws: TransportError.notOpen) { try transport.send([0x01, 0x03, 0x0C, 0x00]) }
            case .available:
                // Bluetooth exists: the outcome depends on the device and our privileges, and
                // every failure must be one that names the device.
                do {
                    try transport.start(sink)
                    transport.close()
                    #expect(sink.closes.count == 1)
                    #expect(sink.closes.first == .some(nil))
                } catch {
                    switch error {
                    case .noSuchDevice(0), .permissionDenied(0), .deviceBusy(0), .radioBlocked(0), .cannotBringDown(0, _):
                        break
                    default:
                        Issue.record("unexpected error for hci0: \(error)")
                    }
                }
            case .otherError(let code):
                Issue.record("socket(AF_BLUETOOTH) failed with errno \(code), neither supported nor EAFNOSUPPORT")
            }
            // A failed start reports no close: transportDidClose follows only a started reader.
            if sink.closes.isEmpty {
                transport.close()
                #expect(sink.closes.isEmpty)
            }
        }

        @Test func deviceIndexOutsideTheKernelRangeIsNoSuchDevice() throws {
            guard case .available = KernelBluetooth.probe() else {
                // Without AF_BLUETOOTH the socket fails first, whatever the index.
                #expect(throws: TransportError.bluetoothUnsupported) {
                    try HCIUserChannelTransport(device: 70000).start(RecordingSink())
                }
                return
            }
            #expect(throws: TransportError.noSuchDevice(device: 70000)) {
                try HCIUserChannelTransport(device: 70000).start(RecordingSink())
            }
        }

        @Test(arguments: [
            (EAFNOSUPPORT, TransportError.bluetoothUnsupported),
            (EPROTONOSUPPORT, .bluetoothUnsupported),
            (EPERM, .permissionDenied(device: 2)),
            (EACCES, .permissionDenied(device: 2)),
            (EBUSY, .deviceBusy(device: 2)),
            (EUSERS, .deviceBusy(device: 2)),
            (ENODEV, .noSuchDevice(device: 2)),
            (ERFKILL, .radioBlocked(device: 2)),
            (EINVAL, .systemCall(call: "bind(HCI_CHANNEL_USER)", errno: EINVAL)),
        ])
        func errnoBecomesAnErrorThatSaysWhatToDo(code: Int32, expected: TransportError) {
            #expect(TransportError.hciSocket(errno: code, call: "bind(HCI_CHANNEL_USER)", device: 2) == expected)
        }

        @Test func newErrorsGiveAdvice() {
            #expect(TransportError.radioBlocked(device: 1).description.contains("rfkill unblock bluetooth"))
            let down = TransportError.cannotBringDown(device: 1, errno: EIO).description
            #expect(down.contains("hci1"))
            #expect(down.contains(String(cString: strerror(EIO))))
        }
    }
}
