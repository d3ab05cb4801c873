/// Fixed facts of the btsnoop file format (version 1), as written by Android, Samsung, BlueZ
/// (`btmon -w`) and read by Wireshark. All integers in the file are big-endian.
package enum BtsnoopFormat {
    /// The identification pattern that opens every file: "btsnoop" and a NUL.
    package static let magic: [UInt8] = [0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00]
    /// The only version ever defined.
    package static let version: UInt32 = 1
    /// Magic, version, datalink.
    package static let fileHeaderSize = 16
    /// Original length, included length, flags, cumulative drops, timestamp.
    package static let recordHeaderSize = 24
    /// The largest included length the reader accepts. The longest HCI packet is an ACL packet:
    /// 4 header bytes and 65,535 data bytes, plus an H4 indicator; a little slack on top covers
    /// monitor records. Anything larger is a corrupt or hostile file, refused before any read.
    package static let maximumIncludedLength = 65_536 + 64
    /// Microseconds from the btsnoop epoch (nominally 0000-01-01) to the Unix epoch: the value
    /// Android, BlueZ and Wireshark use, which is what makes times agree between tools.
    package static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000
}
