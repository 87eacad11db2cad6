import time, torch
torch.set_num_threads(1)
def best(f, n=5):
    f(); b=1e9
    for _ in range(n):
        t=time.perf_counter(); f(); b=min(b,time.perf_counter()-t)
    return b
rows=3200
lin=torch.nn.Sequential(torch.nn.Linear(900,512),torch.nn.ReLU(),*[m for _ in range(4) for m in (torch.nn.Linear(512,512),torch.nn.ReLU())],torch.nn.Linear(512,1))
lstm=torch.nn.LSTM(162,128,batch_first=True)
x=torch.randn(rows,900); h=torch.randn(rows,5,162)
def fb(dtype):
    def f():
        with torch.autocast("cpu",dtype=torch.bfloat16,enabled=dtype is not None):
            y=lin(x).sum()+lstm(h)[0][:,-1].sum()
        y.backward()
    return f
def fwd_lin(dtype):
    def f():
        with torch.no_grad(), torch.autocast("cpu",dtype=torch.bfloat16,enabled=dtype is not None):
            lin(x); lstm(h)
    return f
for name,f in [("fp32 fwd+bwd",fb(None)),("bf16 autocast fwd+bwd",fb(1)),("fp32 fwd",fwd_lin(None)),("bf16 fwd",fwd_lin(1))]:
    print(name, round(best(f)*1000,1),"ms")
