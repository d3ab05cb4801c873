/// Which GATT write sub-procedure carries a value (Vol 3, Part G, 4.9).
public enum GATTWriteProcedure: Hashable, Sendable {
    /// Write Without Response: one Write Command, value up to ATT_MTU - 3.
    case writeWithoutResponse
    /// Write Characteristic Value: one Write Request, value up to ATT_MTU - 3.
    case writeRequest
    /// Write Long Characteristic Values: Prepare Write Requests of ATT_MTU - 5, then Execute Write.
    case longWrite

    /// The largest attribute value (Vol 3, Part F, 3.2.9).
    public static let maximumValueLength = 512

    /// Picks the procedure for a value of `length` bytes at `mtu`: a long write when a response is
    /// wanted and the value does not fit one Write Request; a too long value without response
    /// is an error, since splitting it would not be one write.
    public static func choose(length: Int, mtu: Int, withResponse: Bool) throws(GATTError) -> GATTWriteProcedure {
        guard length <= maximumValueLength else { throw .valueTooLong(length: length, limit: maximumValueLength) }
        let single = mtu - 3
        if length <= single { return withResponse ? .writeRequest : .writeWithoutResponse }
        guard withResponse else { throw .valueTooLongForWriteCommand(length: length, limit: single) }
        return .longWrite
    }
}
