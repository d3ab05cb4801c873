/// One stylus sample: `[dt_us u16][pressure u16][buttons u8]` and, when the batch carries
/// positions, `[x u16][y u16]`, all little-endian.
public struct StylusSample: Sendable, Hashable {
    /// The largest pressure value: the field carries 12 bits.
    @inlinable public static var maximumRawPressure: UInt16 { 4095 }

    /// Microseconds since the previous sample (for a batch's first sample: since the previous
    /// batch's last one).
    public var deltaMicroseconds: UInt16
    /// 0...4095.
    public var rawPressure: UInt16
    /// The tip contact, side buttons and hovering state at this sample.
    public var buttons: StylusButtons
    /// Where the tip is on the pen's own surface, when it has one.
    public var position: StylusPosition?

    /// A sample with a raw 12-bit pressure; the value is not checked here (above 4095 it cannot be
    /// encoded).
    @inlinable
    public init(deltaMicroseconds: UInt16, rawPressure: UInt16, buttons: StylusButtons, position: StylusPosition? = nil) {
        self.deltaMicroseconds = deltaMicroseconds
        self.rawPressure = rawPressure
        self.buttons = buttons
        self.position = position
    }

    /// `pressure` 0...1 is rounded to the 12-bit scale (clamped; NaN is 0).
    public init(deltaMicroseconds: UInt16, pressure: Float, buttons: StylusButtons, position: StylusPosition? = nil) {
        let unit = pressure.isNaN ? 0 : min(max(pressure, 0), 1)
        let raw = UInt16((unit * Float(Self.maximumRawPressure)).rounded())
        self.init(deltaMicroseconds: deltaMicroseconds, rawPressure: raw, buttons: buttons, position: position)
    }

    /// Pressure normalised to 0...1.
    public var pressure: Float { Float(rawPressure) / Float(Self.maximumRawPressure) }
}

/// A position in hundredths of a millimetre on the pen's own surface.
public struct StylusPosition: Sendable, Hashable {
    /// The horizontal coordinate, in 0.01 mm.
    public var x: UInt16
    /// The vertical coordinate, in 0.01 mm.
    public var y: UInt16

    /// The position (`x`, `y`), both in hundredths of a millimetre.
    @inlinable
    public init(x: UInt16, y: UInt16) {
        self.x = x
        self.y = y
    }
}
