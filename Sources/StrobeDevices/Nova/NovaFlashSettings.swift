/// One light command's values: the PWM duty of the warm and cool LED banks (0 off ... 255 full)
/// and the safety timeout after which the flash turns itself off even if no OFF ever arrives.
public struct NovaFlashSettings: Sendable, Hashable, CustomStringConvertible {
    /// The PWM duty of the warm LED bank: 0 off ... 255 full.
    public var warm: UInt8
    /// The PWM duty of the cool LED bank: 0 off ... 255 full.
    public var cool: UInt8
    /// Milliseconds; both wire formats carry 16 bits.
    public var timeoutMilliseconds: UInt16

    /// The reference SDK's safety timeout for presets and custom settings.
    public static let defaultTimeoutMilliseconds: UInt16 = 500

    /// A light with these PWM duties and a safety timeout in milliseconds (500 ms by default).
    public init(warm: UInt8, cool: UInt8, timeoutMilliseconds: UInt16 = defaultTimeoutMilliseconds) {
        self.warm = warm
        self.cool = cool
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// `timeout` is rounded down to whole milliseconds and clamped to 0...65535 ms.
    public init(warm: UInt8, cool: UInt8, timeout: Duration) {
        self.init(warm: warm, cool: cool, timeoutMilliseconds: Self.milliseconds(timeout))
    }

    /// The safety timeout as a `Duration`.
    public var timeout: Duration { .milliseconds(Int(timeoutMilliseconds)) }

    /// A command with these settings turns the light off: both banks dark, or no time to be lit.
    /// The reference SDK sends OFF instead of such a light command.
    public var isEffectivelyOff: Bool { (warm == 0 && cool == 0) || timeoutMilliseconds == 0 }

    /// The same light with another safety timeout.
    public func withTimeout(_ timeout: Duration) -> NovaFlashSettings {
        NovaFlashSettings(warm: warm, cool: cool, timeout: timeout)
    }

    // MARK: Presets (the reference SDK's values)

    /// No light (and no time): always sent as OFF.
    public static let off = NovaFlashSettings(warm: 0, cool: 0, timeoutMilliseconds: 0)
    /// A slight warm light for close-ups.
    public static let gentle = NovaFlashSettings(warm: 127, cool: 0)
    /// Bright, mostly warm light for portraits.
    public static let warm = NovaFlashSettings(warm: 255, cool: 20)
    /// Every LED at full power.
    public static let full = NovaFlashSettings(warm: 255, cool: 255)

    /// The reference SDK's `custom(warm, cool)` light: the same as
    /// `init(warm:cool:timeoutMilliseconds:)`, with a 500 ms safety timeout by default.
    public static func custom(
        warm: UInt8, cool: UInt8, timeoutMilliseconds: UInt16 = defaultTimeoutMilliseconds
    ) -> NovaFlashSettings {
        NovaFlashSettings(warm: warm, cool: cool, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// A light given as brightness and colour temperature, both 0...1 (values outside are
    /// clamped, NaN counts as 0).
    ///
    /// `colorTemperature` places the colour on the line between the two LED banks, in the
    /// direction of kelvins: 0 is the warm bank alone, 1 the cool bank alone, 0.5 both equally.
    /// The banks are mixed in the ratio (1 - t) : t and scaled so that the stronger one runs at
    /// `brightness` x 255, so every colour is as bright as the hardware allows:
    /// `warm = 255 b (1 - t) / max(t, 1 - t)`, `cool = 255 b t / max(t, 1 - t)`, rounded.
    /// Brightness 1 at 0.5 is `full`; brightness 0 is `off`'s light (sent as OFF).
    public static func custom(
        brightness: Double, colorTemperature: Double,
        timeoutMilliseconds: UInt16 = defaultTimeoutMilliseconds
    ) -> NovaFlashSettings {
        let b = unit(brightness)
        let t = unit(colorTemperature)
        let strongest = max(t, 1 - t)
        let warm = pwm(b * (1 - t) / strongest)
        let cool = pwm(b * t / strongest)
        return NovaFlashSettings(warm: warm, cool: cool, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// The three values, e.g. `warm 255, cool 20, timeout 500 ms`.
    public var description: String { "warm \(warm), cool \(cool), timeout \(timeoutMilliseconds) ms" }

    private static func unit(_ value: Double) -> Double {
        value.isNaN ? 0 : min(max(value, 0), 1)
    }

    private static func pwm(_ fraction: Double) -> UInt8 {
        UInt8(min(max((fraction * 255).rounded(), 0), 255))
    }

    static func milliseconds(_ duration: Duration) -> UInt16 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        guard seconds < 66 else { return .max }
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return UInt16(clamping: total)
    }
}
