// libFuzzer target: the evemu recording parser and the evdev frame assembler (PadSensors), as
// `drumpad run --replay x.evemu` uses them: parse, resolve the units per g, assemble samples.
// Built with the PadSensors sources by scripts/fuzz (swiftc -sanitize=fuzzer,address).

@_cdecl("LLVMFuzzerTestOneInput")
public func evemuFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = EvemuRecording.looksLikeRecording(bytes)
    let text = String(decoding: bytes, as: UTF8.self)
    guard let recording = try? EvemuRecording(text: text, fileName: "fuzz.evemu") else { return 0 }
    let units = recording.unitsPerG(override: nil) ?? (x: 1024, y: 1024, z: 1024)
    let samples = recording.samples(unitsPerG: units)
    precondition(samples.count <= recording.events.count, "more samples than events")
    return 0
}
