import time, torch
torch.set_num_threads(1)
def best(f, n=7):
    f(); b=1e9
    for _ in range(n):
        t=time.perf_counter(); f(); b=min(b,(time.perf_counter()-t)/50)
    return b*1e3
for rows in (64, 300):
    x=torch.randn(rows,512); w=torch.randn(512,512,requires_grad=True); wb=w.detach().bfloat16()
    with torch.no_grad():
        def per_call():
            for _ in range(50):
                with torch.autocast("cpu",dtype=torch.bfloat16): torch.nn.functional.linear(x,w)
        def once():
            with torch.autocast("cpu",dtype=torch.bfloat16):
                for _ in range(50): torch.nn.functional.linear(x,w)
        def pure():
            xb=x.bfloat16()
            for _ in range(50): torch.nn.functional.linear(xb,wb)
        def sliced_once():
            with torch.autocast("cpu",dtype=torch.bfloat16):
                for _ in range(50): torch.nn.functional.linear(x,w[:, :512])
        print(rows, "per-call %.3f once %.3f pure %.3f sliced-once %.3f" % (best(per_call), best(once), best(pure), best(sliced_once)))
