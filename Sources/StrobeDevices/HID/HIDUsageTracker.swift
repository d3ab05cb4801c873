/// Follows which usages of one input report are active, report after report, and says which
/// went down and which came up. Built once from the report's layout; `update` allocates
/// nothing (the receive path calls it for every report).
struct HIDUsageTracker: Sendable {
    private struct Variable: Sendable {
        var field: HIDReportDescriptor.Field
        var element: Int
        var watch: Int
    }

    private struct ArrayField: Sendable {
        var field: HIDReportDescriptor.Field
        /// Array index (value - logical minimum) to watch position, -1 when not watched.
        var watchOfIndex: [Int]
    }

    let usages: [HIDUsage]
    private let variables: [Variable]
    private let arrays: [ArrayField]
    private let arrayWatched: [Int]
    let byteLength: Int
    private var previous: [Bool]
    private var current: [Bool]

    init(_ layout: HIDReportDescriptor.Report) {
        var usages: [HIDUsage] = []
        var position: [HIDUsage: Int] = [:]
        func watch(_ usage: HIDUsage) -> Int {
            if let found = position[usage] { return found }
            position[usage] = usages.count
            usages.append(usage)
            return usages.count - 1
        }
        var variables: [Variable] = [], arrays: [ArrayField] = []
        for field in layout.fields where !field.isConstant && !field.usages.isEmpty {
            if field.isVariable {
                for element in 0..<field.count {
                    let usage = field.usages[min(element, field.usages.count - 1)]
                    variables.append(Variable(field: field, element: element, watch: watch(usage)))
                }
            } else {
                let map = field.usages.map { $0.id == 0 ? -1 : watch($0) }
                arrays.append(ArrayField(field: field, watchOfIndex: map))
            }
        }
        self.usages = usages
        self.variables = variables
        self.arrays = arrays
        arrayWatched = Array(Set(arrays.flatMap { $0.watchOfIndex.filter { $0 >= 0 } })).sorted()
        byteLength = layout.byteLength
        previous = [Bool](repeating: false, count: usages.count)
        current = previous
    }

    /// Reads one report; calls `changed` with the position in `usages` of each usage that went
    /// down (true) or up (false).
    /// Returns false, changing nothing, when the report is shorter than its layout.
    mutating func update(_ bytes: UnsafeRawBufferPointer, _ changed: (Int, Bool) -> Void) -> Bool {
        guard bytes.count >= byteLength else { return false }
        for variable in variables {
            current[variable.watch] = variable.field.value(in: bytes, element: variable.element) != 0
        }
        for position in arrayWatched { current[position] = false }
        for array in arrays {
            let field = array.field
            for element in 0..<field.count {
                let value = field.value(in: bytes, element: element)
                guard value >= field.logicalMinimum, value <= field.logicalMaximum else { continue }
                let index = Int(value) - Int(field.logicalMinimum)
                guard index < array.watchOfIndex.count else { continue }
                let position = array.watchOfIndex[index]
                if position >= 0 { current[position] = true }
            }
        }
        for position in 0..<usages.count where current[position] != previous[position] {
            previous[position] = current[position]
            changed(position, current[position])
        }
        return true
    }
}
