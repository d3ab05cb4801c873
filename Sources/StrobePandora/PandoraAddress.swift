import Foundation
import Strobe
import SwiftProtobuf

/// Addresses as the Pandora interfaces carry them: six bytes, most significant first (the
/// reverse of HCI's order).
extension BluetoothAddress {
    init?(pandora bytes: Data) {
        guard bytes.count == 6 else { return nil }
        self.init(wireBytes: bytes.reversed())
    }

    package var pandora: Data { Data(wireBytes.reversed()) }
}

/// A link as the Pandora interfaces hand it out: an opaque cookie holding the id the server
/// gave the link (never reused while the server runs, so a stale cookie finds nothing).
extension Pandora_Connection {
    package init(id: UInt64) {
        self.init()
        cookie = Google_Protobuf_Any()
        cookie.value = withUnsafeBytes(of: id.bigEndian) { Data($0) }
    }

    var id: UInt64? {
        guard cookie.value.count == 8 else { return nil }
        return cookie.value.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}
