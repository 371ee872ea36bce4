package main

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// createPaymentRequest and createPaymentResponse are payments.proto's
// messages, encoded by hand with protowire: the example stays free of
// protoc and generated code, and grpc-go is told to use wireCodec.
type createPaymentRequest struct {
	Amount   int64
	Currency string
}

type createPaymentResponse struct {
	ID       string
	Amount   int64
	Currency string
}

// wireCodec is grpc-go's encoding.Codec for the two messages above.
type wireCodec struct{}

func (wireCodec) Name() string { return "proto" }

func (wireCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case *createPaymentResponse:
		var b []byte
		if m.ID != "" {
			b = protowire.AppendString(protowire.AppendTag(b, 1, protowire.BytesType), m.ID)
		}
		if m.Amount != 0 {
			b = protowire.AppendVarint(protowire.AppendTag(b, 2, protowire.VarintType), uint64(m.Amount))
		}
		if m.Currency != "" {
			b = protowire.AppendString(protowire.AppendTag(b, 3, protowire.BytesType), m.Currency)
		}
		return b, nil
	default:
		return nil, fmt.Errorf("wireCodec: cannot marshal %T", v)
	}
}

func (wireCodec) Unmarshal(b []byte, v any) error {
	m, ok := v.(*createPaymentRequest)
	if !ok {
		return fmt.Errorf("wireCodec: cannot unmarshal into %T", v)
	}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			x, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			m.Amount, b = int64(x), b[n:]
		case num == 2 && typ == protowire.BytesType:
			s, n := protowire.ConsumeString(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			m.Currency, b = s, b[n:]
		default: // unknown fields are skipped, as proto3 requires
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
		}
	}
	return nil
}
