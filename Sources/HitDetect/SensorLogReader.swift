/// A streaming reader of sensor log CSVs (docs/architecture.md, Sensor log CSV) and label CSVs.
///
/// The reader is fed bytes in chunks of any size and parses the complete lines in them, so a log
/// of any length is read in constant memory: the caller owns the file and the buffer, and keeps
/// the unconsumed tail of each chunk (at most one partial line) for the next call.
///
/// - The first non-comment, non-blank line is the header; columns are found by name (compared
///   without regard to case, surrounding spaces or quotes), in any order.
/// - Lines starting with `#` are comments anywhere; `# key: value` is metadata. A comment that
///   reads exactly `# gap` marks lost samples before the next row, so detectors prime again.
/// - Blank lines are ignored; CRLF line ends and a UTF-8 byte-order mark are accepted.
/// - An optional `t_event` column (when each sample's report reached the host) fills the
///   batch's `delivered`; other columns are ignored.
/// - A malformed row throws `HitDetectError` naming the file and line, unless
///   `Options.skipBadRows` is set, in which case it is counted and its message kept.
///
/// Thread safety: a value type; use each instance from one thread at a time.
public struct SensorLogReader: Sendable {
    /// What the reader requires and how it treats bad rows.
    public struct Options: Sendable {
        /// Skip malformed rows (counting them) instead of throwing.
        public var skipBadRows: Bool
        /// Parse the x and y columns too (otherwise they are skipped unchecked, and the batch's
        /// `x` and `y` stay empty).
        public var readXY: Bool
        /// With `readXY`: an x or y that does not parse, or is not finite, reads as nan and the
        /// row is kept (the detector reads z; x and y only help its lean test), where otherwise
        /// the row is malformed.
        public var optionalXY: Bool
        /// Require a `z` column. Off for label files, which need only `t`.
        public var requireZ: Bool
        /// Longest line accepted, in bytes; callers must feed chunks longer than this.
        public var maxLineBytes: Int

        /// Creates options; the defaults read a sensor log strictly.
        public init(skipBadRows: Bool = false, readXY: Bool = true, optionalXY: Bool = false, requireZ: Bool = true,
                    maxLineBytes: Int = 64 * 1024) {
            self.skipBadRows = skipBadRows
            self.readXY = readXY
            self.optionalXY = optionalXY
            self.requireZ = requireZ
            self.maxLineBytes = maxLineBytes
        }
    }

    /// The values of one row, as the columns' roles assign them.
    @usableFromInline
    struct RowValues {
        var t = 0.0, x = 0.0, y = 0.0, z = 0.0, delivered = 0.0
        var labelled = false

        @inline(__always)
        mutating func set(_ role: ColumnRole, _ value: Double) {
            switch role {
            case .time: t = value
            case .x: x = value
            case .y: y = value
            case .z: z = value
            case .hit: labelled = value != 0
            case .delivered: delivered = value
            case .ignored: break
            }
        }
    }

    /// Appends an accepted row to `batch` (both paths): its gap mark, label and values. The
    /// caller keeps `lastTime` (the fast path holds it in a local until it stops).
    @inline(__always)
    mutating func commit(_ row: RowValues, into batch: inout SensorBatch) {
        if pendingGap {
            pendingGap = false
            if rowCount > 0 || isContinuation { batch.gapsBefore.append(batch.count) }
        }
        if row.labelled { batch.labelled.append(batch.count) }
        batch.time.append(row.t)
        batch.z.append(row.z)
        if options.readXY {
            batch.x.append(row.x)
            batch.y.append(row.y)
        }
        if readsDelivery { batch.delivered.append(row.delivered) }
        if firstTime == nil { firstTime = row.t }
        rowCount &+= 1
    }

    /// What each column of the header means to the reader.
    @usableFromInline
    enum ColumnRole: UInt8, Sendable {
        case ignored, time, x, y, z, hit, delivered
    }

    /// The name used for the file in error messages.
    public let fileName: String
    /// The options the reader runs with.
    public let options: Options
    /// Column names from the header, once it has been read.
    public internal(set) var columns: [String] = []
    /// `# key: value` comments, in order (the first 256).
    public internal(set) var metadata: [(key: String, value: String)] = []
    /// Number of the last line consumed (1-based).
    public internal(set) var lineNumber = 0
    /// Data rows accepted so far.
    public internal(set) var rowCount = 0
    /// Made by `continuation()`: reads a later part of a log, with rows before it.
    var isContinuation = false
    /// Malformed rows skipped so far (only with `Options.skipBadRows`).
    public private(set) var skippedRowCount = 0
    /// Messages of the first ten skipped rows.
    public private(set) var skippedRowMessages: [String] = []
    /// Time of the first accepted row.
    public internal(set) var firstTime: Double?
    /// Time of the last accepted row.
    public internal(set) var lastTime: Double?

    @usableFromInline var roles: [ColumnRole] = []
    /// The header has a `t_event` column: the batch's `delivered` is filled.
    @usableFromInline var readsDelivery = false
    @usableFromInline var sawHeader = false
    @usableFromInline var pendingGap = false

    /// Creates a reader for a file that errors will call `fileName`.
    public init(fileName: String, options: Options = Options()) {
        self.fileName = fileName
        self.options = options
    }

    /// Whether the header has an `x`, `y` or `hit` column.
    public func hasColumn(_ name: String) -> Bool { columns.contains(name) }

    /// The value of the first `# key: value` comment with this key.
    public func metadataValue(_ key: String) -> String? {
        metadata.first { $0.key == key }?.value
    }

    /// Parses the complete lines at the start of `bytes`, appending their samples to `batch`, and
    /// returns how many bytes it consumed. The rest (a partial last line) must be passed again,
    /// followed by more of the file. With `isEnd`, the last line needs no line end and everything
    /// is consumed.
    ///
    /// Throws `HitDetectError` for a malformed header or row (rows only without `skipBadRows`),
    /// and for a line longer than `Options.maxLineBytes`. Rows before the bad one are in `batch`.
    public mutating func read(_ bytes: UnsafeRawBufferPointer, isEnd: Bool,
                              into batch: inout SensorBatch) throws(HitDetectError) -> Int {
        if batch.count == 0 { batch.firstIndex = rowCount }
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0
        else { return 0 }
        let end = bytes.count
        var lineStart = 0
        if lineNumber == 0 && !sawHeader && end >= 3
            && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF {
            lineStart = 3  // UTF-8 byte-order mark
        }
        while lineStart < end {
            if sawHeader {
                // Plain data rows take the fast path; it stops at anything else.
                let (stop, incomplete) = readPlainRows(base, from: lineStart, end: end,
                                                       isEnd: isEnd, into: &batch)
                lineStart = stop
                if incomplete {
                    if end - lineStart > options.maxLineBytes {
                        throw .lineTooLong(file: fileName, line: lineNumber + 1,
                                           limit: options.maxLineBytes)
                    }
                    return lineStart
                }
                if lineStart >= end { break }
            }
            // The general path, one line: comments, the header, blank lines, rows with spaces or
            // unusual numbers, and every malformed row (for its precise error).
            var lineEnd = lineStart
            while lineEnd < end && base[lineEnd] != UInt8(ascii: "\n") { lineEnd &+= 1 }
            if lineEnd == end && !isEnd {
                if end - lineStart > options.maxLineBytes {
                    throw .lineTooLong(file: fileName, line: lineNumber + 1,
                                       limit: options.maxLineBytes)
                }
                return lineStart
            }
            lineNumber &+= 1
            if lineEnd - lineStart > options.maxLineBytes {
                throw .lineTooLong(file: fileName, line: lineNumber, limit: options.maxLineBytes)
            }
            var contentEnd = lineEnd
            if contentEnd > lineStart && base[contentEnd - 1] == UInt8(ascii: "\r") {
                contentEnd &-= 1
            }
            try readLine(base + lineStart, count: contentEnd - lineStart, into: &batch)
            lineStart = lineEnd &+ 1
        }
        return end
    }

    /// The fast path: reads rows made only of plain numbers and commas, in one pass over the
    /// bytes, until a line that is anything else (left for the general path, which is exact
    /// about errors), the end of the input, or a partial last line (`incomplete`).
    @usableFromInline
    mutating func readPlainRows(_ base: UnsafePointer<UInt8>, from start: Int, end: Int,
                                isEnd: Bool, into batch: inout SensorBatch)
        -> (position: Int, incomplete: Bool) {
        let comma = UInt8(ascii: ","), newline = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
        let columnCount = roles.count
        var lineStart = start
        var incomplete = false
        var previousTime = lastTime ?? -Double.infinity
        roles.withUnsafeBufferPointer { roles in
          DecimalParsing.exactPowersOfTen.withUnsafeBufferPointer { powersBuffer in
            SWARScanning.integerPowersOfTen.withUnsafeBufferPointer { integerPowersBuffer in
                let powers = powersBuffer.baseAddress!
                let integerPowers = integerPowersBuffer.baseAddress!
                lines: while lineStart < end {
                    let first = base[lineStart]
                    // Comments, blank lines and leading spaces go to the general path.
                    if first == UInt8(ascii: "#") || first == newline || first == cr
                        || first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                        break lines
                    }
                    var p = lineStart
                    var row = RowValues()
                    for field in 0..<columnCount {
                        let fieldStart = p
                        p = SWARScanning.fieldEnd(base, from: p, end: end)
                        if p >= end && !isEnd {
                            // The input ends inside this line: wait for more.
                            incomplete = true
                            break lines
                        }
                        let role = roles[field]
                        if role != .ignored {
                            var value: Double
                            if let quick = SWARScanning.decimal(
                                base, from: fieldStart, to: p, end: end,
                                doublePowers: powers, integerPowers: integerPowers) {
                                value = quick
                            } else {
                                var scanned = fieldStart
                                guard let exact = DecimalParsing.scan(base, &scanned, end: p,
                                                                      powers: powers),
                                      scanned == p
                                else { break lines }
                                value = exact
                            }
                            // Out of range: the general path reports it (or drops an
                            // optional x or y).
                            guard value.magnitude <= Self.largestValue else { break lines }
                            row.set(role, value)
                        }
                        if p >= end {
                            // At the very end, a last line without a line end is accepted.
                            if field != columnCount - 1 { break lines }
                        } else if field != columnCount - 1 {
                            guard base[p] == comma else { break lines }
                            p &+= 1
                        } else {
                            if base[p] == cr {
                                p &+= 1
                                if p >= end {
                                    if !isEnd { incomplete = true }
                                    break lines
                                }
                            }
                            guard base[p] == newline else { break lines }
                            p &+= 1
                        }
                    }
                    guard row.t >= previousTime else { break lines }  // the general path reports it
                    commit(row, into: &batch)
                    previousTime = row.t
                    lineNumber &+= 1
                    lineStart = p
                }
            }
          }
        }
        if rowCount > 0 { lastTime = previousTime }
        return (lineStart, incomplete)
    }

    /// Checks the input as a whole once it has all been read: it must have had a header.
    public func finish() throws(HitDetectError) {
        if !sawHeader { throw .missingHeader(file: fileName) }
    }

    /// One line without its line end.
    @usableFromInline
    mutating func readLine(_ line: UnsafePointer<UInt8>, count: Int,
                           into batch: inout SensorBatch) throws(HitDetectError) {
        var first = 0
        while first < count && (line[first] == UInt8(ascii: " ") || line[first] == UInt8(ascii: "\t")) {
            first &+= 1
        }
        if first == count { return }  // blank
        if line[first] == UInt8(ascii: "#") {
            readComment(line + first + 1, count: count - first - 1)
            return
        }
        if !sawHeader {
            try readHeader(line, count: count)
            return
        }
        do throws(HitDetectError) {
            try readRow(line, count: count, into: &batch)
        } catch {
            guard options.skipBadRows else { throw error }
            skippedRowCount += 1
            if skippedRowMessages.count < 10 { skippedRowMessages.append(error.description) }
        }
    }

    mutating func readComment(_ text: UnsafePointer<UInt8>, count: Int) {
        let comment = Self.trimmed(String(decoding: UnsafeBufferPointer(start: text, count: count),
                                          as: UTF8.self))
        if comment == "gap" {
            pendingGap = true
            return
        }
        guard metadata.count < 256, let colon = comment.firstIndex(of: ":") else { return }
        let key = Self.trimmed(String(comment[..<colon]))
        let value = Self.trimmed(String(comment[comment.index(after: colon)...]))
        guard !key.isEmpty, !key.contains(" ") else { return }
        metadata.append((key: key, value: value))
    }

    mutating func readHeader(_ line: UnsafePointer<UInt8>, count: Int) throws(HitDetectError) {
        let text = String(decoding: UnsafeBufferPointer(start: line, count: count), as: UTF8.self)
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { field in
            var name = Self.trimmed(String(field))
            if name.count >= 2 && name.hasPrefix("\"") && name.hasSuffix("\"") {
                name = String(name.dropFirst().dropLast())
            }
            return name.lowercased()
        }
        var roles: [ColumnRole] = []
        for (i, name) in names.enumerated() {
            if !name.isEmpty && names[..<i].contains(name) {
                throw .duplicateColumn(file: fileName, line: lineNumber, column: name)
            }
            switch name {
            case "t": roles.append(.time)
            case "z": roles.append(options.requireZ ? .z : .ignored)
            case "x": roles.append(options.readXY ? .x : .ignored)
            case "y": roles.append(options.readXY ? .y : .ignored)
            case "hit": roles.append(options.requireZ ? .hit : .ignored)
            case "t_event": roles.append(options.requireZ ? .delivered : .ignored)
            default: roles.append(.ignored)
            }
        }
        for required in options.requireZ ? ["t", "z"] : ["t"] where !names.contains(required) {
            throw .missingColumn(file: fileName, line: lineNumber, column: required, found: names)
        }
        columns = names
        self.roles = roles
        readsDelivery = roles.contains(.delivered)
        sawHeader = true
    }

    @usableFromInline
    mutating func readRow(_ line: UnsafePointer<UInt8>, count: Int,
                          into batch: inout SensorBatch) throws(HitDetectError) {
        var row = RowValues()
        var field = 0
        var position = 0
        let columnCount = roles.count
        try roles.withUnsafeBufferPointer { (roles) throws(HitDetectError) in
            try DecimalParsing.exactPowersOfTen.withUnsafeBufferPointer {
                (powers) throws(HitDetectError) in
                while true {
                    var fieldEnd = position
                    while fieldEnd < count && line[fieldEnd] != UInt8(ascii: ",") { fieldEnd &+= 1 }
                    if field < columnCount {
                        let role = roles[field]
                        if role != .ignored {
                            row.set(role, try number(line, from: position, to: fieldEnd, role: role,
                                                     column: field, powers: powers.baseAddress!))
                        }
                    }
                    field &+= 1
                    if fieldEnd >= count { break }
                    position = fieldEnd &+ 1
                }
            }
        }
        if field != columnCount {
            throw .wrongFieldCount(file: fileName, line: lineNumber, expected: columnCount,
                                   found: field)
        }
        if let previous = lastTime, row.t < previous {
            throw .timeDecreased(file: fileName, line: lineNumber, previous: previous, current: row.t)
        }
        commit(row, into: &batch)
        lastTime = row.t
    }

    /// The number in `line[from..<to]`, spaces around it allowed.
    @inline(__always)
    func number(_ line: UnsafePointer<UInt8>, from: Int, to: Int, role: ColumnRole, column: Int,
                powers: UnsafePointer<Double>) throws(HitDetectError) -> Double {
        var start = from, end = to
        while start < end && line[start] == UInt8(ascii: " ") { start &+= 1 }
        while end > start && line[end - 1] == UInt8(ascii: " ") { end &-= 1 }
        if start == end && role == .hit { return 0 }
        if options.optionalXY && (role == .x || role == .y) {
            let value = DecimalParsing.parse(line + start, count: end - start, powers: powers) ?? .nan
            return value.magnitude <= Self.largestValue ? value : .nan
        }
        guard let value = DecimalParsing.parse(line + start, count: end - start, powers: powers)
        else {
            throw .badNumber(file: fileName, line: lineNumber, column: columns[column],
                             text: Self.text(line + start, count: end - start))
        }
        guard value.isFinite else {
            throw .nonFiniteNumber(file: fileName, line: lineNumber, column: columns[column],
                                   text: Self.text(line + start, count: end - start))
        }
        guard value.magnitude <= Self.largestValue else {
            throw .numberTooLarge(file: fileName, line: lineNumber, column: columns[column],
                                  text: Self.text(line + start, count: end - start))
        }
        return value
    }

    /// The largest magnitude a field may hold: 10¹² g is beyond any sensor, and 10¹² s (31,700
    /// years) beyond any log's clock, while its µs still fit an Int64 with room to add and
    /// subtract, and z's differences and their squares stay finite. Beyond it a value is an
    /// error (an optional x or y is dropped), not a trap or an infinity further on.
    public static let largestValue = 1e12

    static func text(_ start: UnsafePointer<UInt8>, count: Int) -> String {
        let shown = min(count, 40)
        let text = String(decoding: UnsafeBufferPointer(start: start, count: shown), as: UTF8.self)
        return shown < count ? text + "…" : text
    }

    static func trimmed(_ text: String) -> String {
        var view = Substring(text)
        while let first = view.first, first == " " || first == "\t" { view.removeFirst() }
        while let last = view.last, last == " " || last == "\t" { view.removeLast() }
        return String(view)
    }
}
