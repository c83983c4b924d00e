# A stand-in for torch, for tests/unit/test_pyrt_fake_torch.c only: the
# CUDA path of pyrt (harness/arms/pyrt.h) cannot run on a machine without a
# GPU, so this module answers what pyrt asks of torch (import, CUDA
# available, as_tensor over a __cuda_array_interface__, view as bfloat16,
# an external stream made current) and records it, so the test can check
# what pyrt asked. It computes nothing; the real torch is checked on the
# GPU machine (scripts/gpu/pyrt_check.sh).
__version__ = '0.0+abbench-stand-in'


class version:
    cuda = '0.0'


class dtype(object):
    def __init__(self, name, size):
        self.name, self.itemsize = name, size

    def __repr__(self):
        return 'torch.' + self.name


bfloat16, float16, float32 = dtype('bfloat16', 2), dtype('float16', 2), dtype('float32', 4)
int16, int32, int64, uint8 = dtype('int16', 2), dtype('int32', 4), dtype('int64', 8), dtype('uint8', 1)
TYPESTR = {'<i2': int16, '<f2': float16, '<f4': float32, '<i4': int32, '<i8': int64, '|u1': uint8}


class device(object):
    def __init__(self, kind, index=None):
        self.type, self.index = kind, index

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __str__(self):
        return '%s:%d' % (self.type, self.index)


class Tensor(object):
    # Holds its source as torch's deleter does, so pyrt can see it kept.
    def __init__(self, source, ptr, shape, dt, dev):
        self.source, self.ptr, self.shape, self.dtype, self.device = source, ptr, tuple(shape), dt, dev

    def view(self, dt):
        if dt.itemsize != self.dtype.itemsize:
            raise RuntimeError('view: element sizes differ')
        return Tensor(self.source, self.ptr, self.shape, dt, self.device)

    def data_ptr(self):
        return self.ptr

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def is_contiguous(self):
        return True


LOG = []


def as_tensor(obj, device=None):
    cai = obj.__cuda_array_interface__
    ptr, read_only = cai['data']
    if read_only or cai.get('version') != 3 or cai['typestr'] not in TYPESTR or cai.get('strides') is not None:
        raise TypeError('unexpected __cuda_array_interface__ %r' % (cai,))
    LOG.append(('as_tensor', ptr, device))
    return Tensor(obj, ptr, cai['shape'], TYPESTR[cai['typestr']], device)


class Stream(object):
    def __init__(self, ptr, dev):
        self.cuda_stream, self.device = ptr, dev


class cuda:
    current = {}
    device_index = [0]

    @staticmethod
    def is_available():
        return True

    @staticmethod
    def get_stream_from_external(ptr, dev):
        return Stream(ptr, dev)

    @staticmethod
    def set_device(dev):
        cuda.device_index[0] = dev.index

    @staticmethod
    def current_device():
        return cuda.device_index[0]

    @staticmethod
    def set_stream(s):
        cuda.current[s.device.index] = s

    @staticmethod
    def current_stream(dev=None):
        index = cuda.device_index[0] if dev is None else dev.index
        return cuda.current.get(index, Stream(0, device('cuda', index)))

    @staticmethod
    def default_stream(dev):
        return Stream(0, dev)
