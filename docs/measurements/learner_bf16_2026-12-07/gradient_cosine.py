import sys, torch
sys.path.insert(0, "tests")
from algorithms.dmc.test_learner_precision import _om_config, _played_frames, _forward_and_grads, Q
config=_om_config(); batch=_played_frames(config,400); learner=config.build_learner(env=None); learner.build()
for mid in batch:
    o32,l32,g32=_forward_and_grads(learner,mid,batch[mid],None); o16,l16,g16=_forward_and_grads(learner,mid,batch[mid],torch.bfloat16)
    cos={n: float(torch.nn.functional.cosine_similarity(g16[n].flatten(),g.flatten(),dim=0)) for n,g in g32.items() if g.norm()>0}
    print(mid, len(batch[mid]["obs"]), "min cos", min(cos.values()), min(cos,key=cos.get), "max|dQ|", float((o16[Q]-o32[Q]).abs().max()), "loss", float(l32), float(l16))
