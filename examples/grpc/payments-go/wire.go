package main

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// createPaymentRequest and createPaymentResponse are payments.proto's
// messages, createEntryRequest and createEntryResponse the gRPC ledger's
// (payments-go-grpcledger/ledger.proto), encoded by hand with protowire:
// the example stays free of protoc and generated code, and grpc-go is told
// to use wireCodec on both sides.
type createPaymentRequest struct {
	Amount   int64
	Currency string
}

type createPaymentResponse struct {
	ID       string
	Amount   int64
	Currency string
}

type createEntryRequest struct {
	Payment  string
	Amount   int64
	Currency string
}

type createEntryResponse struct {
	Entry string
}

// wireCodec is grpc-go's encoding.Codec for the messages above.
type wireCodec struct{}

func (wireCodec) Name() string { return "proto" }

func (wireCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case *createPaymentResponse:
		return appendPayment(nil, m.ID, m.Amount, m.Currency), nil
	case *createEntryRequest:
		return appendPayment(nil, m.Payment, m.Amount, m.Currency), nil
	default:
		return nil, fmt.Errorf("wireCodec: cannot marshal %T", v)
	}
}

// appendPayment appends fields 1 (a string), 2 (an int64) and 3 (a
// string), leaving out zero values as proto3 does: both the payment
// answer and the ledger entry request have that shape.
func appendPayment(b []byte, id string, amount int64, currency string) []byte {
	if id != "" {
		b = protowire.AppendString(protowire.AppendTag(b, 1, protowire.BytesType), id)
	}
	if amount != 0 {
		b = protowire.AppendVarint(protowire.AppendTag(b, 2, protowire.VarintType), uint64(amount))
	}
	if currency != "" {
		b = protowire.AppendString(protowire.AppendTag(b, 3, protowire.BytesType), currency)
	}
	return b
}

func (wireCodec) Unmarshal(b []byte, v any) error {
	switch m := v.(type) {
	case *createPaymentRequest:
		return eachField(b, func(num protowire.Number, typ protowire.Type, b []byte) int {
			switch {
			case num == 1 && typ == protowire.VarintType:
				x, n := protowire.ConsumeVarint(b)
				m.Amount = int64(x)
				return n
			case num == 2 && typ == protowire.BytesType:
				s, n := protowire.ConsumeString(b)
				m.Currency = s
				return n
			}
			return protowire.ConsumeFieldValue(num, typ, b)
		})
	case *createEntryResponse:
		return eachField(b, func(num protowire.Number, typ protowire.Type, b []byte) int {
			if num == 1 && typ == protowire.BytesType {
				s, n := protowire.ConsumeString(b)
				m.Entry = s
				return n
			}
			return protowire.ConsumeFieldValue(num, typ, b)
		})
	default:
		return fmt.Errorf("wireCodec: cannot unmarshal into %T", v)
	}
}

// eachField hands each field of message b to field, which returns the
// bytes of its value it consumed (negative: a protowire error); unknown
// fields are for field to skip with ConsumeFieldValue, as proto3 requires.
func eachField(b []byte, field func(protowire.Number, protowire.Type, []byte) int) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		n = field(num, typ, b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
	}
	return nil
}
