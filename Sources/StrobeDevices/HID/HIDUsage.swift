/// A HID usage: its page and its ID on that page (HID Usage Tables).
public struct HIDUsage: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The usage page, e.g. 0x0C Consumer.
    public var page: UInt16
    /// The usage ID on that page.
    public var id: UInt16

    /// The usage `id` on `page`.
    public init(page: UInt16, id: UInt16) {
        self.page = page
        self.id = id
    }

    /// 0x01 Generic Desktop page.
    public static let genericDesktopPage: UInt16 = 0x01
    /// 0x07 Keyboard/Keypad page.
    public static let keyboardPage: UInt16 = 0x07
    /// 0x08 LED page.
    public static let ledPage: UInt16 = 0x08
    /// 0x09 Button page.
    public static let buttonPage: UInt16 = 0x09
    /// 0x0C Consumer page.
    public static let consumerPage: UInt16 = 0x0C

    /// The usage `id` on the Consumer page (0x0C).
    public static func consumer(_ id: UInt16) -> HIDUsage { HIDUsage(page: consumerPage, id: id) }
    /// The usage `id` on the Keyboard/Keypad page (0x07).
    public static func keyboard(_ id: UInt16) -> HIDUsage { HIDUsage(page: keyboardPage, id: id) }

    /// Consumer Volume Up (0xE9): what most camera shutter remotes send.
    public static let volumeUp = consumer(0xE9)
    /// Consumer Volume Down (0xEA).
    public static let volumeDown = consumer(0xEA)
    /// Keyboard Return (Enter) (0x28): what some remotes send instead.
    public static let enter = keyboard(0x28)

    /// Orders by page, then by usage ID.
    public static func < (a: Self, b: Self) -> Bool { (a.page, a.id) < (b.page, b.id) }

    /// `consumer:0x00e9`, `keyboard:0x0028`, `page 0xff00:0x0001`.
    public var description: String {
        let name: String = switch page {
        case Self.genericDesktopPage: "desktop"
        case Self.keyboardPage: "keyboard"
        case Self.ledPage: "led"
        case Self.buttonPage: "button"
        case Self.consumerPage: "consumer"
        default: "page 0x" + Self.hex4(page)
        }
        return name + ":0x" + Self.hex4(id)
    }

    /// Parses what `description` prints (the named pages, or `0xPPPP:0xIIII`).
    public init?(_ text: String) {
        let parts = text.lowercased().split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[1].hasPrefix("0x"), let id = UInt16(parts[1].dropFirst(2), radix: 16) else { return nil }
        let page: UInt16? = switch parts[0] {
        case "desktop": Self.genericDesktopPage
        case "keyboard": Self.keyboardPage
        case "led": Self.ledPage
        case "button": Self.buttonPage
        case "consumer": Self.consumerPage
        default: parts[0].hasPrefix("0x") ? UInt16(parts[0].dropFirst(2), radix: 16) : nil
        }
        guard let page else { return nil }
        self.init(page: page, id: id)
    }

    private static func hex4(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
