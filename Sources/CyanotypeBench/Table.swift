import Foundation

/// A measured amount: a time, or a memory size.
enum Quantity {
    case seconds(Double)
    case bytes(Int)
    /// A difference in 8-bit levels.
    case levels(Int)
    /// How many values (samples) something holds for.
    case count(Int)
    /// Any other measured number, in the named unit.
    case measure(Double, String)

    static func time(_ t: Timing) -> Quantity { .seconds(t.wall) }

    var value: Double {
        switch self {
        case .seconds(let s): return s;
        case .bytes(let b): return Double(b);
        case .levels(let l): return Double(l);
        case .count(let n): return Double(n)
        case .measure(let v, _): return v
        }
    }
    var text: String {
        switch self {
        case .seconds(let s): return s < 0.1 ? String(format: "%.1f ms", s * 1000) : String(format: "%.3f s", s)
        case .bytes(let b): return String(format: "%.0f MB", Double(b) / 1e6)
        case .levels(let l): return "\(l) level\(l == 1 ? "" : "s")"
        case .count(let n): return "\(n) value\(n == 1 ? "" : "s")"
        case .measure(let v, let unit): return String(format: "%.3f ", v) + unit
        }
    }
}

/// A workload's goal from the engine issue.
enum Target {
    case throughputAtLeast(Double)  // MP/s
    case ratioAtMost(Double)  // ours / reference
    case ratioBelow(Double)
    case valueAtMost(Double, String)  // ours itself, in the named unit
    case info  // measured for context, no goal

    var text: String {
        switch self {
        case .throughputAtLeast(let t): return String(format: ">= %.0f MP/s", t)
        case .ratioAtMost(let r): return String(format: "ratio <= %g", r)
        case .ratioBelow(let r): return r == 1 ? "faster (ratio < 1)" : String(format: "ratio < %g", r)
        case .valueAtMost(let v, let unit): return String(format: "<= %g ", v) + unit
        case .info: return "(info)"
        }
    }
}

/// One line of the report.
struct Row {
    let workload: String
    let ours: Quantity
    /// CPU seconds of our best run (all threads).
    var oursCPU: Double? = nil
    /// Pixels produced per run, for the MP/s column (nil where throughput means nothing).
    let megapixels: Double?
    let reference: String
    let referenceValue: Quantity?
    var referenceCPU: Double? = nil
    let target: Target

    var throughput: Double? {
        guard let mp = megapixels, case .seconds(let s) = ours, s > 0 else { return nil }
        return mp / s
    }
    var ratio: Double? {
        guard let r = referenceValue, r.value > 0 else { return nil }
        return ours.value / r.value
    }
    /// Ours / reference in CPU seconds: steadier than the wall ratio when other work shares
    /// the cores, though it hides how well each side uses them.
    var cpuRatio: Double? {
        guard let o = oursCPU, let r = referenceCPU, r > 0 else { return nil }
        return o / r
    }
    var passed: Bool? {
        switch target {
        case .throughputAtLeast(let t): return throughput.map { $0 >= t }
        case .ratioAtMost(let r): return ratio.map { $0 <= r }
        case .ratioBelow(let r): return ratio.map { $0 < r }
        case .valueAtMost(let v, _): return ours.value <= v
        case .info: return nil
        }
    }

    static let headers = ["Workload", "Ours", "CPU s", "MP/s", "Reference", "Ref", "Ref CPU s", "Ratio", "CPU ratio", "Target", "Result"]
    var cells: [String] {
        let cpu = { (c: Double?) in c.map { String(format: $0 < 0.1 ? "%.4f" : "%.2f", $0) } ?? "-" }
        return [
            workload, ours.text, cpu(oursCPU), throughput.map { String(format: "%.0f", $0) } ?? "-", reference,
            referenceValue?.text ?? "-", cpu(referenceCPU), ratio.map { String(format: "%.3f", $0) } ?? "-",
            cpuRatio.map { String(format: "%.3f", $0) } ?? "-", target.text,
            passed.map { $0 ? "PASS" : "MISS" } ?? "-",
        ]
    }
}

enum Table {
    /// Right-align the numeric columns, left-align the text ones.
    private static let rightAligned: Set<Int> = [1, 2, 3, 5, 6, 7, 8]

    static func text(_ rows: [Row]) -> String {
        let all = [Row.headers] + rows.map(\.cells)
        let widths = Row.headers.indices.map { c in all.map { $0[c].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { c, s in
                let pad = String(repeating: " ", count: widths[c] - s.count)
                return rightAligned.contains(c) ? pad + s : s + pad
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(Row.headers), rule] + rows.map { line($0.cells) }).joined(separator: "\n")
    }

    static func markdown(_ rows: [Row]) -> String {
        func line(_ cells: [String]) -> String { "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |" }
        let rule = "|" + Row.headers.indices.map { rightAligned.contains($0) ? "---:|" : "---|" }.joined()
        return ([line(Row.headers), rule] + rows.map { line($0.cells) }).joined(separator: "\n")
    }
}
