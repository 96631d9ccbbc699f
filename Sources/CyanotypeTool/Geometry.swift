import Cyanotype
import Foundation

/// What filters that read past the picture's edges see there (`--edges`): the edge pixels
/// repeated (clamp, the default), mirrored texture, or nothing (Core Image's own behaviour,
/// which fades the borders towards transparent).
package enum EdgeMode: String, CaseIterable, Sendable {
    case clamp, mirror, transparent

    /// `image` extended past its extent as this mode says.
    package func extend(_ image: CIImage) -> CIImage {
        guard !image.extent.isInfinite else { return image }
        switch self {
        case .clamp: return image.clampedToExtent()
        case .mirror: return image.mirroredToExtent()
        case .transparent: return image
        }
    }
}

/// ImageMagick's gravity: which part of the picture a crop keeps, and where `--crop` offsets
/// are measured from.
package enum Gravity: String, CaseIterable, Sendable {
    case northwest, north, northeast, west, center, east, southwest, south, southeast

    package static func parse(_ text: String?) throws(CLIError) -> Gravity? {
        guard let text else { return nil }
        let key = text.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "")
        if let g = Gravity(rawValue: key == "centre" ? "center" : key) { return g }
        let names = allCases.map(\.rawValue)
        throw .usage("--gravity must be one of \(names.joined(separator: ", ")), got '\(text)'" + Suggest.hint(text, in: names))
    }

    /// The top-left corner (from the top) of a `w` x `h` box in a `W` x `H` picture, offset
    /// by (dx, dy) inward from the gravity's edge (ImageMagick: east offsets move left).
    package func place(_ w: Int, _ h: Int, in W: Int, _ H: Int, dx: Int = 0, dy: Int = 0) -> (x: Int, y: Int) {
        let x: Int
        switch self {
        case .northwest, .west, .southwest: x = dx
        case .north, .center, .south: x = (W - w) / 2 + dx
        case .northeast, .east, .southeast: x = W - w - dx
        }
        let y: Int
        switch self {
        case .northwest, .north, .northeast: y = dy
        case .west, .center, .east: y = (H - h) / 2 + dy
        case .southwest, .south, .southeast: y = H - h - dy
        }
        return (x, y)
    }
}

/// `--crop WxH+X+Y`: a box with its top-left corner X, Y from the picture's top-left (or
/// from the `--gravity` edge).
package struct CropSpec: Equatable, Sendable {
    package var width: Int, height: Int, x: Int, y: Int

    package static func parse(_ text: String) throws(CLIError) -> CropSpec {
        let bad = CLIError.usage("--crop expects WxH+X+Y (pixels, top-left origin), e.g. 800x600+100+50, or WxH, got '\(text)'")
        var rest = Substring(text)
        guard let xIndex = rest.firstIndex(where: { $0 == "x" || $0 == "X" }) else { throw bad }
        guard let w = Int(rest[..<xIndex]), w > 0 else { throw bad }
        rest = rest[rest.index(after: xIndex)...]
        let signIndex = rest.firstIndex(where: { $0 == "+" || $0 == "-" }) ?? rest.endIndex
        guard let h = Int(rest[..<signIndex]), h > 0 else { throw bad }
        rest = rest[signIndex...]
        var offsets: [Int] = []
        while !rest.isEmpty {
            let sign = rest.first == "-" ? -1 : 1
            rest = rest.dropFirst()
            let end = rest.firstIndex(where: { $0 == "+" || $0 == "-" }) ?? rest.endIndex
            guard let v = Int(rest[..<end]), !rest[..<end].contains(where: { !$0.isNumber }) else { throw bad }
            offsets.append(sign * v)
            rest = rest[end...]
        }
        guard offsets.isEmpty || offsets.count == 2 else { throw bad }
        return CropSpec(width: w, height: h, x: offsets.first ?? 0, y: offsets.last ?? 0)
    }
}

/// `--resize` in ImageMagick's geometry: `50%`, `800` or `800x` (width), `x600` (height),
/// `800x600` (fit inside), `800x600^` (cover the box, nothing cropped: 900x600 for a 3:2
/// picture), `800x600!` (exactly), with `>` (only shrink) or `<` (only enlarge). `--thumbnail`
/// covers the box and crops to it by gravity (`cropsToBox`).
package struct ResizeSpec: Equatable, Sendable {
    package enum Mode: Equatable, Sendable { case percent(Double), fit, fill, exact }
    package var mode: Mode
    package var width: Int?
    package var height: Int?
    package var onlyShrink = false
    package var onlyEnlarge = false
    /// A fill cropped to the box by gravity afterwards (`--thumbnail`); `--resize WxH^` only
    /// covers it, as ImageMagick's `-resize`.
    package var cropsToBox = false

    package init(mode: Mode, width: Int? = nil, height: Int? = nil, onlyShrink: Bool = false, onlyEnlarge: Bool = false) {
        self.mode = mode
        self.width = width
        self.height = height
        self.onlyShrink = onlyShrink
        self.onlyEnlarge = onlyEnlarge
    }

    package static func parse(_ text: String, option: String = "--resize") throws(CLIError) -> ResizeSpec {
        let bad = CLIError.usage(
            "\(option) expects 50%, 800x600 (fit), 800x600^ (cover, no crop), 800x600! (exact), 800x or x600, optionally with > (only shrink) or < (only enlarge), got '\(text)'")
        var body = Substring(text.trimmingCharacters(in: .whitespaces))
        var flags = Set<Character>()
        while let last = body.last, "^!><".contains(last) { flags.insert(last); body = body.dropLast() }
        guard !body.isEmpty else { throw bad }
        var spec = ResizeSpec(mode: .fit)
        spec.onlyShrink = flags.contains(">")
        spec.onlyEnlarge = flags.contains("<")
        if spec.onlyShrink && spec.onlyEnlarge { throw bad }
        if body.hasSuffix("%") {
            guard let p = Double(body.dropLast()), p.isFinite, p > 0, p <= 10_000, flags.isDisjoint(with: "^!") else { throw bad }
            spec.mode = .percent(p)
            return spec
        }
        let parts = body.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        func side(_ s: Substring?) throws(CLIError) -> Int? {
            guard let s, !s.isEmpty else { return nil }
            guard let v = Int(s), (1...1_000_000).contains(v) else { throw bad }
            return v
        }
        spec.width = try side(parts.first)
        spec.height = try side(parts.count > 1 ? parts[1] : nil)
        guard spec.width != nil || spec.height != nil else { throw bad }
        if flags.contains("^") && flags.contains("!") { throw bad }
        if flags.contains("^") || flags.contains("!") {
            guard spec.width != nil, spec.height != nil else { throw bad }
            spec.mode = flags.contains("^") ? .fill : .exact
        }
        return spec
    }

    /// The size a `w` x `h` picture is scaled to, before a fill's crop; nil when `>`/`<` say
    /// to leave it.
    package func scaledSize(_ w: Int, _ h: Int) -> (Int, Int)? {
        let W = Double(w), H = Double(h)
        var size: (Double, Double)
        switch mode {
        case .percent(let p): size = (W * p / 100, H * p / 100)
        case .exact: size = (Double(width ?? w), Double(height ?? h))
        case .fit, .fill:
            let sx = width.map { Double($0) / W }, sy = height.map { Double($0) / H }
            let s: Double
            switch (sx, sy) {
            case let (a?, b?): s = mode == .fill ? max(a, b) : min(a, b)
            case let (a?, nil): s = a
            case let (nil, b?): s = b
            default: s = 1
            }
            size = (W * s, H * s)
        }
        var tw = max(1, Int(size.0.rounded())), th = max(1, Int(size.1.rounded()))
        // A fill covers the box exactly on the side that decided the scale.
        if mode == .fill, let bw = width, let bh = height { tw = max(tw, bw); th = max(th, bh) }
        let enlarges = tw > w || th > h, shrinks = tw < w || th < h
        if onlyShrink && !shrinks { return nil }
        if onlyEnlarge && !enlarges { return nil }
        return (tw, th)
    }
}

/// The picture-level steps of a command line, in the order they run: crop, rotate, flip and
/// flop before the filters; resizing after them (see `Pipeline`).
package struct GeometryOptions: Sendable {
    package var crop: CropSpec?
    /// Clockwise degrees.
    package var rotate: Double?
    package var flip = false
    package var flop = false
    package var gravity: Gravity?
    /// `--resize` / `--thumbnail`, then `--max-size` as a cap.
    package var resize: ResizeSpec?
    package var maxSize: Int?
    package var edges: EdgeMode = .clamp

    package init() {}

    package var isEmpty: Bool { crop == nil && rotate == nil && !flip && !flop && resize == nil && maxSize == nil }

    /// True when a step can leave parts of the picture uncovered (a rotation that is not a
    /// right angle): an opaque input then needs flattening onto the background.
    package var uncoversPixels: Bool {
        guard let r = rotate else { return false }
        return r.truncatingRemainder(dividingBy: 90) != 0
    }

    package static func parse(_ args: ParsedArguments) throws(CLIError) -> GeometryOptions {
        var g = GeometryOptions()
        g.crop = try args.value("crop").map { (t: String) throws(CLIError) in try CropSpec.parse(t) }
        if let text = args.value("rotate") {
            guard let d = Double(text), d.isFinite, abs(d) <= 1_000_000 else {
                throw .usage("--rotate expects degrees clockwise (90, 180, 270 or any angle), got '\(text)'")
            }
            var a = d.truncatingRemainder(dividingBy: 360)
            if a < 0 { a += 360 }
            g.rotate = a == 0 ? nil : a
        }
        g.flip = args.has("flip")
        g.flop = args.has("flop")
        g.gravity = try Gravity.parse(args.value("gravity"))
        if args.has("resize") && args.has("thumbnail") { throw .usage("give --resize or --thumbnail, not both") }
        if let t = args.value("resize") { g.resize = try ResizeSpec.parse(t) }
        if let t = args.value("thumbnail") {
            // A square (or WxH) thumbnail: cover the box, crop the rest by gravity. `WxH^` is
            // accepted too (ImageMagick's cover geometry, then the crop).
            let grammar = CLIError.usage(
                "--thumbnail expects a size in pixels from 1 to 1000000: 256 (a square) or 320x240 (a box, covered then cropped by --gravity; 320x240^ too), got '\(t)'"
            )
            let body = t.hasSuffix("^") ? String(t.dropLast()) : t
            guard var s = try? ResizeSpec.parse(body.contains("x") ? body : "\(body)x\(body)", option: "--thumbnail"),
                s.width != nil, s.height != nil, case .fit = s.mode, !s.onlyShrink, !s.onlyEnlarge
            else { throw grammar }
            s.mode = .fill
            s.cropsToBox = true
            g.resize = s
        }
        g.maxSize = try args.int("max-size", in: 1...1_000_000)
        if let e = try args.choice("edges", EdgeMode.allCases.map(\.rawValue)) { g.edges = EdgeMode(rawValue: e) ?? .clamp }
        if g.gravity != nil && g.crop == nil && g.resize?.cropsToBox != true {
            throw .usage(
                "--gravity places a --crop, or the crop of --thumbnail WxH (--resize WxH^ covers the box without cropping, as ImageMagick's)")
        }
        return g
    }

    /// Crop, rotation, flip and flop, each leaving the picture at the origin.
    package func applyBeforeFilters(_ input: CIImage) throws(CLIError) -> CIImage {
        var image = atOrigin(input)
        if let c = crop {
            let W = Int(image.extent.width.rounded()), H = Int(image.extent.height.rounded())
            let (x, y) = (gravity ?? .northwest).place(c.width, c.height, in: W, H, dx: c.x, dy: c.y)
            let x0 = max(0, x), y0 = max(0, y), x1 = min(W, x + c.width), y1 = min(H, y + c.height)
            guard x1 > x0, y1 > y0 else {
                throw .failure("--crop \(c.width)x\(c.height)\(c.x >= 0 ? "+" : "")\(c.x)\(c.y >= 0 ? "+" : "")\(c.y) lies outside the \(W)x\(H) picture")
            }
            // Top-left pixel rows -> Core Image's bottom-left origin.
            image = atOrigin(image.cropped(to: CGRect(x: x0, y: H - y1, width: x1 - x0, height: y1 - y0)))
        }
        if let r = rotate {
            switch r {
            case 90: image = image.oriented(.right)
            case 180: image = image.oriented(.down)
            case 270: image = image.oriented(.left)
            default:
                // Clockwise on screen is negative in Core Image's y-up space; bilinear, the
                // uncovered corners clear.
                image = image.transformed(by: CGAffineTransform(rotationAngle: -r * .pi / 180))
            }
            image = atOrigin(image)
        }
        if flip { image = atOrigin(image.oriented(.downMirrored)) }
        if flop { image = atOrigin(image.oriented(.upMirrored)) }
        return image
    }

    /// `--resize`/`--thumbnail`, then the `--max-size` cap, with Lanczos over the edge mode's
    /// extension of the picture (so an opaque picture stays opaque to its last pixel).
    package func applyAfterFilters(_ input: CIImage) throws(CLIError) -> CIImage {
        guard resize != nil || maxSize != nil, !input.extent.isInfinite, !input.extent.isEmpty else { return input }
        var image = atOrigin(input)
        if let resize {
            let W = Int(image.extent.width.rounded()), H = Int(image.extent.height.rounded())
            if let (tw, th) = resize.scaledSize(W, H) {
                image = try scaled(image, to: tw, th)
                if resize.cropsToBox, let bw = resize.width, let bh = resize.height, tw > bw || th > bh {
                    let (x, y) = (gravity ?? .center).place(bw, bh, in: tw, th)
                    image = atOrigin(image.cropped(to: CGRect(x: x, y: th - y - bh, width: bw, height: bh)))
                }
            }
        }
        if let maxSize {
            let W = Int(image.extent.width.rounded()), H = Int(image.extent.height.rounded())
            if let (tw, th) = ResizeSpec(mode: .fit, width: maxSize, height: maxSize, onlyShrink: true).scaledSize(W, H) {
                image = try scaled(image, to: tw, th)
            }
        }
        return image
    }

    /// `image` (at the origin) resampled to exactly `w` x `h` pixels.
    package func scaled(_ image: CIImage, to w: Int, _ h: Int) throws(CLIError) -> CIImage {
        let W = image.extent.width, H = image.extent.height
        if Int(W.rounded()) == w && Int(H.rounded()) == h { return image }
        let sy = CGFloat(h) / H, sx = CGFloat(w) / W
        let lanczos = CIFilter.lanczosScaleTransform()
        lanczos.setValue(edges.extend(image), forKey: kCIInputImageKey)
        lanczos.setValue(NSNumber(value: Double(sy)), forKey: kCIInputScaleKey)
        lanczos.setValue(NSNumber(value: Double(sx / sy)), forKey: kCIInputAspectRatioKey)
        let out: CIImage
        do { out = try lanczos.makeOutputImage() } catch { throw Messages.filter(error) }
        return out.cropped(to: CGRect(x: 0, y: 0, width: w, height: h))
    }

    /// `image` moved so its extent starts at (0, 0).
    package func atOrigin(_ image: CIImage) -> CIImage {
        let e = image.extent
        guard !e.isInfinite, !e.isEmpty, e.minX != 0 || e.minY != 0 else { return image }
        return image.transformed(by: CGAffineTransform(translationX: -e.minX, y: -e.minY))
    }
}
