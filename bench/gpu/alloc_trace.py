"""What the measurement scripts print from torch's allocation history (TRACE lines): the caching
allocator's segments as a run ends, and every segment it reserved while the history ran."""


def frame_names(event, skip=("torch/utils/_", "torch/nn/modules/module.py")):
    """An event's Python frames, innermost first, as file:line:function, torch's plumbing left out."""
    return [f"{f['filename'].split('site-packages/')[-1].split('.tt/')[-1].split('/ds/')[-1]}:{f['line']}:{f['name']}"
            for f in event.get("frames", []) if not any(s in f["filename"] for s in skip)]


def print_segments(snapshot):
    """What the caching allocator holds as the step ends, per stream (TRACE lines): reserved bytes,
    allocated bytes and the largest free block. Reserved never shrinks here (no empty_cache), so the
    reserved bytes are the run's peak; the free blocks are where its fragmentation sits."""
    streams = {}
    for seg in snapshot["segments"]:
        s = streams.setdefault(seg["stream"], dict(segments=0, reserved=0, allocated=0, largest_free=0))
        s["segments"] += 1
        s["reserved"] += seg["total_size"]
        s["allocated"] += seg["allocated_size"]
        for block in seg["blocks"]:
            if block["state"] == "inactive":
                s["largest_free"] = max(s["largest_free"], block["size"])
    for stream, s in sorted(streams.items(), key=lambda kv: -kv[1]["reserved"]):
        print(f"TRACE stream {stream}: {s['segments']} segments, reserved {s['reserved'] / 2**30:.3f} GiB, "
              f"allocated {s['allocated'] / 2**30:.3f}, largest free block {s['largest_free'] / 2**30:.3f}",
              flush=True)


def print_segment_allocs(snapshot, depth=4):
    """Every segment the allocator reserved (cudaMalloc) while the history ran, in order (TRACE lines):
    its size, the reserved and allocated totals once it was made, and the Python frames that asked for
    the block it was made for. Where reserved grows beyond what is allocated is where cached blocks
    could not be reused."""
    reserved = allocated = 0
    for event in snapshot["device_traces"][0]:
        action, size = event["action"], event["size"]
        if action == "alloc":
            allocated += size
        elif action == "free_completed":
            allocated -= size
        elif action == "segment_free":
            reserved -= size
        elif action == "segment_alloc":
            reserved += size
            print(f"TRACE segment {size / 2**30:8.3f} GiB: reserved {reserved / 2**30:.3f}, allocated "
                  f"{allocated / 2**30:.3f} < {' < '.join(frame_names(event)[:depth])}", flush=True)


def dump_events(snapshot, path):
    """Every event of the allocation history, in order, to `path` (gzip'd JSON): `frames`, the distinct
    innermost Python frames (three, torch's plumbing left out) joined by ' < ', and `events`, each
    [action, address, size, stream, frame index]: enough to replay the caching allocator offline."""
    import gzip
    import json
    frames, index, events = [], {}, []
    for event in snapshot["device_traces"][0]:
        where = " < ".join(frame_names(event)[:3])
        if where not in index:
            index[where] = len(frames)
            frames.append(where)
        events.append([event["action"], event.get("addr", 0), event["size"], event.get("stream", 0), index[where]])
    with gzip.open(path, "wt") as f:
        json.dump({"frames": frames, "events": events,
                   "segments": [dict(address=s["address"], total_size=s["total_size"], stream=s["stream"],
                                     allocated_size=s["allocated_size"]) for s in snapshot["segments"]]}, f)
