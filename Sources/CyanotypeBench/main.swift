import Foundation
import Cyanotype

// cyanotype-bench: the engine issue's workloads against reference tools, in one run.
//   cyanotype-bench [--size WxH] [--runs N] [--quick] [--markdown] [--only key,key]
// --quick runs each measurement once. Keys: matrix chain blur crop memory jpeg lut reduce insta text gif 16bit blurs video png stream photos.

struct Options {
    var width = 6000, height = 4000
    var runs = 3
    var quick = false
    var markdown = false
    var only: Set<String>? = nil
    var child: String? = nil

    static func parse(_ args: [String]) throws -> Options {
        var o = Options()
        var it = args.dropFirst().makeIterator()
        func value(_ flag: String) throws -> String {
            guard let v = it.next() else { throw BenchError("\(flag) needs a value") }
            return v
        }
        while let a = it.next() {
            switch a {
            case "--size":
                let parts = try value(a).split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts.allSatisfy({ $0 >= 100 }) else { throw BenchError("--size wants WxH, each >= 100") }
                (o.width, o.height) = (parts[0], parts[1])
            case "--runs":
                guard let n = Int(try value(a)), n > 0 else { throw BenchError("--runs wants a positive number") }
                o.runs = n
            case "--quick": o.quick = true; o.runs = 1
            case "--markdown": o.markdown = true
            case "--only": o.only = Set(try value(a).split(separator: ",").map(String.init))
            case "--child-workload": o.child = try value(a)
            case "-h", "--help":
                print("usage: cyanotype-bench [--size WxH] [--runs N] [--quick] [--markdown] [--only \(allWorkloads.map(\.key).joined(separator: ","))]")
                exit(0)
            default: throw BenchError("unknown argument \(a)")
            }
        }
        return o
    }
}

func runBench(_ o: Options) throws {
    let image = SyntheticImage(width: o.width, height: o.height)
    let machine = Machine.describe()
    let header = machine.lines + [String(format: "image:   %dx%d (%.1f MP) synthetic photo-like, best of %d run(s)", o.width, o.height, image.megapixels, o.runs)]
    print(header.joined(separator: "\n"))
    fflush(nil)
    let env = try BenchEnvironment(image: image, runs: o.runs, quick: o.quick)
    var rows = [Row]()
    for w in allWorkloads where o.only?.contains(w.key) ?? true {
        do {
            rows += try w.run(env)
        } catch {
            env.notes.append("\(w.key): failed: \(error)")
        }
    }
    print("")
    print(o.markdown ? Table.markdown(rows) : Table.text(rows))
    if !env.notes.isEmpty {
        print("")
        print(env.notes.map { (o.markdown ? "- " : "  ") + $0 }.joined(separator: "\n"))
    }
}

do {
    let o = try Options.parse(CommandLine.arguments)
    if let child = o.child {
        switch child {
        case VideoWorkloads.memoryChildName: try VideoWorkloads.memoryChild()
        case PeakMemory.childName: try PeakMemory.child(SyntheticImage(width: o.width, height: o.height))
        case "blur":
            // For profilers: only the in-memory blur of workload 3, `runs` times.
            let env = try BenchEnvironment(image: SyntheticImage(width: o.width, height: o.height), runs: o.runs, quick: o.quick)
            let t = try env.time8(blurred(env))
            print(String(format: "blur %dx%d: best %.3f s, %.3f s CPU", o.width, o.height, t.wall, t.cpu))
        default: throw BenchError("unknown child workload \(child)")
        }
    } else {
        try runBench(o)
    }
} catch {
    FileHandle.standardError.write("cyanotype-bench: \(error)\n".data(using: .utf8)!)
    exit(1)
}
